/**
 * Structure-aware bodies through the whole HTTP pipeline: objects of every served kind with
 * random values in their fields, damaged texts, YAML-only constructs and every patch type, sent
 * to create, update, patch and apply. No 5xx other than kube's own, no uncaught exception.
 */
import { describe, it } from 'vitest';
import { builtinResourceTypes } from '../../src/api/builtin.ts';
import { apiVersionOf } from '../../src/api/types.ts';
import { encodeYaml } from '../../src/codec/yaml-encode.ts';
import { iterations, rng, seed } from './fuzz-config.ts';
import { expectNoServerFaults, useFuzzServer, type Outcome } from './fuzz-harness.ts';
import { jsonPatch, mutateText, objectBody, pick, value, yamlDocument } from './generators.ts';

describe('HTTP body fuzzing over every kind and write verb', () => {
  const fz = useFuzzServer();

  it(`random bodies (seed ${seed})`, async () => {
    const r = rng(seed + 100);
    const outcomes: Outcome[] = [];
    const n = iterations(400);
    for (let i = 0; i < n; i++) {
      const rt = pick(r, builtinResourceTypes);
      const base = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
      const collection = rt.namespaced ? `${base}/namespaces/default/${rt.resource}` : `${base}/${rt.resource}`;
      const name = `fz-${i % 7}`;
      const obj = objectBody(r, apiVersionOf(rt), rt.kind, name);
      // Random values in the kind's own top-level fields too, not only metadata.
      for (const k of Object.keys(rt.schema.properties ?? {})) if (r() < 0.3 && !['apiVersion', 'kind', 'metadata'].includes(k)) obj[k] = value(r, 4);
      const asYaml = r() < 0.3;
      let text = asYaml ? (r() < 0.3 ? yamlDocument(r) : encodeYaml(obj)) : JSON.stringify(obj);
      if (r() < 0.2) text = mutateText(r, text);
      const bodyType = asYaml ? 'application/yaml' : 'application/json';
      const verb = pick(r, ['create', 'update', 'merge', 'strategic', 'json-patch', 'apply'] as const);
      const label = `${verb} ${rt.resource} ${text.slice(0, 200)}`;
      switch (verb) {
        case 'create':
          outcomes.push(await fz.send(label, 'POST', collection, text, bodyType));
          break;
        case 'update':
          outcomes.push(await fz.send(label, 'PUT', `${collection}/${name}`, text, bodyType));
          break;
        case 'merge':
          outcomes.push(await fz.send(label, 'PATCH', `${collection}/${name}`, r() < 0.5 ? text : JSON.stringify(value(r, 4)), 'application/merge-patch+json'));
          break;
        case 'strategic':
          outcomes.push(await fz.send(label, 'PATCH', `${collection}/${name}`, r() < 0.5 ? text : JSON.stringify(value(r, 4)), 'application/strategic-merge-patch+json'));
          break;
        case 'json-patch':
          outcomes.push(await fz.send(label, 'PATCH', `${collection}/${name}`, JSON.stringify(jsonPatch(r)), 'application/json-patch+json'));
          break;
        default:
          outcomes.push(await fz.send(`apply ${rt.resource} ${text.slice(0, 200)}`, 'PATCH', `${collection}/${name}?fieldManager=fuzz${r() < 0.3 ? '&force=true' : ''}`, text, 'application/apply-patch+yaml'));
      }
    }
    expectNoServerFaults(outcomes, fz.uncaught);
  }, 600_000);
});
