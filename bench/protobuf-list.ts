/**
 * Protobuf list encoding (issue 19 item 1): 10,000 ConfigMaps of the shape kubectl and
 * controllers write (labels, annotations, managedFields, a few data keys) encoded as one
 * ConfigMapList, from scratch and with each item's message bytes memoized as the list handler
 * keeps them on cache entries. Prints milliseconds per list (median of runs) beside JSON.
 *
 * `npm run bench:protobuf` (also part of `npm run bench`).
 */
import { encodeProtobufList, encodeProtobufItemMessage, encodeProtobufListOfMessages } from '../src/codec/protobuf/index.ts';

function configMap(i: number): Record<string, unknown> {
  return {
    metadata: {
      name: `cm-${i}`,
      namespace: 'bench',
      uid: `0f0e0d0c-0b0a-0908-0706-${String(i).padStart(12, '0')}`,
      resourceVersion: String(1000 + i),
      creationTimestamp: '2026-11-25T10:00:00Z',
      labels: { app: 'bench', tier: i % 2 ? 'web' : 'db' },
      annotations: { 'example.com/owner': 'team-a' },
      managedFields: [
        { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: '2026-11-25T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {}, 'f:tier': {} } } } },
      ],
    },
    data: { a: 'x'.repeat(64), b: `value-${i}`, c: 'y'.repeat(32) },
  };
}

const items = Array.from({ length: 10_000 }, (_, i) => configMap(i));
const listMeta = { resourceVersion: '20000' };
const runs = 15;

function median(f: () => unknown): number {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    f();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

const cold = median(() => encodeProtobufList('ConfigMapList', 'v1', listMeta, items));
const memo = items.map((o) => encodeProtobufItemMessage('v1', 'ConfigMap', o));
const warm = median(() => encodeProtobufListOfMessages('ConfigMapList', 'v1', listMeta, memo));
const json = median(() => Buffer.from(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: listMeta, items })));
console.log(`protobuf list of 10,000 ConfigMaps, every item encoded      ${cold.toFixed(1)} ms`);
console.log(`protobuf list of 10,000 ConfigMaps, item bytes memoized      ${warm.toFixed(1)} ms`);
console.log(`JSON.stringify of the same list (for scale)                  ${json.toFixed(1)} ms`);
