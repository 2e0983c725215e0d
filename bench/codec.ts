/**
 * Codec figures: JSON.parse alone vs decodeJson (JSON.parse + duplicate-key scanner) on a ~1 MB
 * list body, and the two YAML libraries (`yaml`, `js-yaml`) on the same list as YAML.
 * Run: npx tsx bench/codec.ts
 */
import { decodeJson, scanDuplicateKeys } from '../src/codec/json-decode.ts';
import { decodeYaml } from '../src/codec/yaml-decode.ts';
import { encodeYaml } from '../src/codec/yaml-encode.ts';
import * as YAML from 'yaml';
import jsYaml from 'js-yaml';

function configMap(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `cm-${i}`,
      namespace: 'default',
      uid: `0b6c1f9e-${String(i).padStart(4, '0')}-4a3b-9c1d-2e3f4a5b6c7d`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: 'bench', tier: i % 2 ? 'web' : 'db' },
      annotations: { 'example.com/note': 'a note that is long enough to look like real annotations do' },
    },
    data: { 'config.yaml': 'key: value\nother: 1\n', setting: `v${i}`, enabled: 'true' },
  };
}

function listBody(targetBytes: number): string {
  const items: unknown[] = [];
  let body = '';
  for (let i = 0; body.length < targetBytes; i++) {
    items.push(configMap(i));
    if (i % 100 === 99) body = JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items });
  }
  return JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items });
}

/** Median milliseconds per run of fn over a short, bounded number of runs. */
function time(fn: () => unknown, runs: number): number {
  for (let i = 0; i < 3; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const json = listBody(1024 * 1024);
const mb = (json.length / 1024 / 1024).toFixed(2);
const tParse = time(() => JSON.parse(json), 20);
const tScan = time(() => scanDuplicateKeys(json, 1000), 20);
const tDecode = time(() => decodeJson(json), 20);
console.log(`JSON body ${mb} MB`);
console.log(`  JSON.parse            ${tParse.toFixed(2)} ms`);
console.log(`  duplicate scanner     ${tScan.toFixed(2)} ms  (${(tScan / tParse).toFixed(2)}x JSON.parse)`);
console.log(`  decodeJson (both)     ${tDecode.toFixed(2)} ms  (${(tDecode / tParse).toFixed(2)}x JSON.parse)`);

const value = JSON.parse(json);
const yamlText = encodeYaml(value);
console.log(`YAML body ${(yamlText.length / 1024 / 1024).toFixed(2)} MB (from encodeYaml)`);
const tYaml = time(() => YAML.parse(yamlText, { uniqueKeys: false, maxAliasCount: 100 }), 5);
const tYamlDoc = time(() => decodeYaml(yamlText), 5);
const tJsYaml = time(() => jsYaml.load(yamlText), 5);
console.log(`  yaml.parse            ${tYaml.toFixed(1)} ms`);
console.log(`  decodeYaml (yaml+dups) ${tYamlDoc.toFixed(1)} ms`);
console.log(`  js-yaml load          ${tJsYaml.toFixed(1)} ms`);
const tEnc = time(() => encodeYaml(value), 5);
const tYamlStr = time(() => YAML.stringify(value), 5);
console.log(`YAML encode of the list`);
console.log(`  encodeYaml            ${tEnc.toFixed(1)} ms`);
console.log(`  yaml.stringify        ${tYamlStr.toFixed(1)} ms (different output shape; for scale)`);
