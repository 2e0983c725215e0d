/**
 * Structure-aware fuzzing of every decoder and patch type, in process: generated and mutated
 * JSON and YAML bodies, JSON patches, merge and strategic merge patches over real kinds' schemas.
 * The invariant: each call returns a value or throws an ApiError with a 4xx code (or kube's own
 * unwrapped 500, reason ''); never a TypeError, RangeError or any other raw exception.
 */
import { describe, expect, it } from 'vitest';
import { decodeJson } from '../../src/codec/json-decode.ts';
import { decodeYaml } from '../../src/codec/yaml-decode.ts';
import { encodeYaml } from '../../src/codec/yaml-encode.ts';
import { isApiError } from '../../src/api/status-errors.ts';
import { applyJsonPatch } from '../../src/patch/json-patch.ts';
import { applyMergePatch } from '../../src/patch/merge-patch.ts';
import { applyStrategicMergePatch } from '../../src/patch/strategic-merge-patch.ts';
import { builtinResourceTypes } from '../../src/api/builtin.ts';
import { checkGoTypes } from '../../src/codec/go-types.ts';
import { iterations, rng, seed } from './fuzz-config.ts';
import { jsonPatch, mutateText, objectBody, pick, value, yamlDocument } from './generators.ts';

/** Runs `fn`; a raw exception (not an ApiError, or an ApiError 5xx other than kube's own) is a finding. */
function finding(label: string, fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (isApiError(err) && (err.code < 500 || err.reason === '')) return undefined;
    const e = err as Error;
    return `${label}: ${e?.name}: ${e?.message?.slice(0, 200)}`;
  }
}

function runCampaign(name: string, n: number, offset: number, one: (r: () => number, i: number) => string | undefined): void {
  it(`${name} (${n} cases, seed ${seed})`, () => {
    const r = rng(seed + offset);
    const found: string[] = [];
    for (let i = 0; i < n && found.length < 5; i++) {
      const f = one(r, i);
      if (f) found.push(f);
    }
    expect(found).toEqual([]);
  }, 600_000);
}

const current = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: { a: 'b' }, finalizers: ['x/y'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u1' }] },
  data: { k: 'v' },
});

describe('decoder and patch fuzzing', () => {
  runCampaign('JSON bodies: generated and mutated', iterations(3000), 1, (r, i) => {
    const text = mutateText(r, JSON.stringify(r() < 0.7 ? objectBody(r, 'v1', 'ConfigMap', `n${i}`) : value(r, 6)));
    return finding(`decodeJson ${JSON.stringify(text.slice(0, 120))}`, () => decodeJson(text, { expectedKind: 'ConfigMap' }));
  });

  runCampaign('YAML bodies: generated, mutated, and YAML-only constructs', iterations(500), 2, (r, i) => {
    const base = r() < 0.5 ? yamlDocument(r) : encodeYaml(objectBody(r, 'v1', 'ConfigMap', `n${i}`));
    const text = r() < 0.5 ? mutateText(r, base) : base;
    return finding(`decodeYaml ${JSON.stringify(text.slice(0, 160))}`, () => {
      const out = decodeYaml(text, { expectedKind: 'ConfigMap' });
      // Whatever YAML decodes to must be something JSON can carry, as sigs.k8s.io/yaml guarantees.
      const json = JSON.stringify(out.value);
      if (json !== undefined && JSON.stringify(JSON.parse(json)) !== json) throw new Error('decoded value does not round-trip through JSON');
    });
  });

  runCampaign('YAML output reads back as the same value', iterations(800), 3, (r, i) => {
    const v = r() < 0.6 ? objectBody(r, 'v1', 'ConfigMap', `n${i}`) : value(r, 5);
    return finding(`encodeYaml ${JSON.stringify(v).slice(0, 160)}`, () => {
      const back = decodeYaml(encodeYaml(v)).value;
      // go-yaml writes map keys sorted; compare values, not key order.
      const norm = (x: unknown): string =>
        JSON.stringify(x, (_k, y) => {
          if (typeof y === 'number' && Object.is(y, -0)) return 0;
          if (y && typeof y === 'object' && !Array.isArray(y)) return Object.fromEntries(Object.keys(y).sort().map((k) => [k, (y as Record<string, unknown>)[k]]));
          return y;
        });
      if (norm(back) !== norm(v)) throw new Error(`round trip changed ${norm(v).slice(0, 100)} into ${norm(back).slice(0, 100)}`);
    });
  });

  runCampaign('JSON patches', iterations(3000), 4, (r, i) => finding(`json patch ${i}`, () => applyJsonPatch(current(`n${i}`), jsonPatch(r))));

  runCampaign('merge patches', iterations(3000), 5, (r, i) => finding(`merge patch ${i}`, () => applyMergePatch(current(`n${i}`), value(r, 5))));

  runCampaign('strategic merge patches over every kind, after the type check', iterations(3000), 6, (r, i) => {
    const rt = pick(r, builtinResourceTypes);
    const patch = r() < 0.8 ? objectBody(r, 'v1', rt.kind, `n${i}`) : value(r, 5);
    // The handler type-checks a strategic patch before applying it; mirror that order here.
    if (checkGoTypes(patch, rt.schema, { rootStruct: rt.kind, rootPackage: rt.version, patchDirectives: true })) return undefined;
    return finding(`strategic patch ${rt.resource} ${JSON.stringify(patch).slice(0, 200)}`, () => applyStrategicMergePatch(current(`n${i}`), patch, rt.schema));
  });

  runCampaign('the Go type check itself never throws', iterations(3000), 7, (r) => {
    const rt = pick(r, builtinResourceTypes);
    const v = value(r, 6);
    return finding('checkGoTypes', () => checkGoTypes(v, rt.schema, { rootStruct: rt.kind, rootPackage: rt.version, zeroNulls: r() < 0.5, patchDirectives: r() < 0.5 }));
  });
});
