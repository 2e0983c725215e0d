/**
 * Server-side apply throughput: a 50-field Deployment-like object owned by three managers
 * (two appliers and one updater), re-applied with a changing value. Prints applies/second.
 * Run: npx tsx bench/apply.ts
 */
import type { KubeObject } from '../src/api/types.ts';
import { serverSideApply, trackUpdate } from '../src/apply/index.ts';
import type { Schema } from '../src/schema/types.ts';

const str: Schema = { type: 'string' };
const schema: Schema = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        config: { type: 'object', additionalProperties: str },
        containers: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: str, image: str, env: { type: 'object', additionalProperties: str } } },
        },
      },
    },
  },
};

function config(prefix: string, n: number, value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`${prefix}${i}`] = value;
  return out;
}

// 20 labels/config keys per applier + containers: about 50 tracked fields in all.
function objectFor(manager: string, round: number): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'bench', labels: config(`${manager}-l`, 5, 'v') },
    spec: {
      config: config(`${manager}-k`, 14, manager === 'a' ? `r${round}` : 'fixed'),
      containers: [{ name: `${manager}-c`, image: `img:${round % 3}`, env: config('E', 3, 'x') }],
    },
  };
}

const base = { schema, apiVersion: 'apps/v1', force: false } as const;
let live = serverSideApply(null, objectFor('a', 0), { ...base, manager: 'a', now: new Date().toISOString() });
live = serverSideApply(live, objectFor('b', 0), { ...base, manager: 'b', now: new Date().toISOString() });
live = trackUpdate(live, { ...live, spec: { ...(live.spec as object), replicas: 3 } }, { schema, apiVersion: 'apps/v1', manager: 'ctrl', now: new Date().toISOString() });

let fields = 0;
for (const e of live.metadata!.managedFields!) fields += JSON.stringify(e.fieldsV1).split('{}').length - 1;

const N = 3000;
const start = process.hrtime.bigint();
for (let i = 1; i <= N; i++) {
  live = serverSideApply(live, objectFor(i % 2 ? 'a' : 'b', i), { ...base, manager: i % 2 ? 'a' : 'b', now: new Date().toISOString() });
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(
  `apply: ${N} server-side applies of a ${fields}-field object with ${live.metadata!.managedFields!.length} managers in ${seconds.toFixed(2)}s = ${Math.round(N / seconds)} applies/s`,
);
