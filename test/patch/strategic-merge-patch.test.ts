import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/status-errors.ts';
import type { Schema } from '../../src/schema/types.ts';
import { applyStrategicMergePatch } from '../../src/patch/strategic-merge-patch.ts';
import { itemsSchema, patchMeta, propertySchema } from '../../src/patch/schema-walk.ts';

const str: Schema = { type: 'string' };
const mergeList = (items: Schema, mergeKey?: string, strategy = 'merge'): Schema => ({
  type: 'array',
  items,
  'x-kubernetes-patch-strategy': strategy,
  ...(mergeKey ? { 'x-kubernetes-patch-merge-key': mergeKey } : {}),
});

const container: Schema = {
  type: 'object',
  properties: {
    name: str,
    image: str,
    args: { type: 'array', items: str },
    ports: mergeList({ type: 'object', properties: { containerPort: { type: 'integer' }, protocol: str } }, 'containerPort'),
    env: mergeList({ type: 'object', properties: { name: str, value: str } }, 'name'),
  },
};

/** A cut-down Deployment schema carrying the markers the built-in types carry. */
const deployment: Schema = {
  type: 'object',
  properties: {
    metadata: {
      type: 'object',
      properties: {
        name: str,
        labels: { type: 'object', additionalProperties: str },
        finalizers: mergeList(str),
      },
    },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        strategy: {
          type: 'object',
          'x-kubernetes-patch-strategy': 'retainKeys',
          properties: { type: str, rollingUpdate: { type: 'object', properties: { maxSurge: { type: 'integer' }, maxUnavailable: { type: 'integer' } } } },
        },
        template: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                containers: mergeList(container, 'name'),
                tolerations: { type: 'array', items: { type: 'object', properties: { key: str, value: str, effect: str } } },
                volumes: mergeList({ type: 'object', properties: { name: str, hostPath: { type: 'object' }, emptyDir: { type: 'object' } } }, 'name', 'merge,retainKeys'),
                nodeSelector: { type: 'object', additionalProperties: str, 'x-kubernetes-patch-strategy': 'replace' },
                extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          },
        },
      },
    },
  },
};

const podSpec = (spec: Record<string, unknown>) => ({ spec: { template: { spec } } });
const ctr = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra });

function apply(original: unknown, patch: unknown): unknown {
  const before = JSON.stringify(original);
  const beforePatch = JSON.stringify(patch);
  const out = applyStrategicMergePatch(original, patch, deployment);
  expect(JSON.stringify(original)).toBe(before);
  expect(JSON.stringify(patch)).toBe(beforePatch);
  return out;
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('strategic merge patch: kube documentation examples', () => {
  it('merges containers by name (new entries first, as in "Update API Objects in Place")', () => {
    const original = podSpec({ containers: [ctr('patch-demo-ctr', { image: 'nginx' })] });
    const patch = podSpec({ containers: [ctr('patch-demo-ctr-2', { image: 'redis' })] });
    expect(apply(original, patch)).toEqual(podSpec({ containers: [ctr('patch-demo-ctr-2', { image: 'redis' }), ctr('patch-demo-ctr', { image: 'nginx' })] }));
  });

  it('replaces lists without a patch strategy (tolerations)', () => {
    const original = podSpec({ tolerations: [{ effect: 'NoSchedule', key: 'dedicated', value: 'test-team' }] });
    const patch = podSpec({ tolerations: [{ effect: 'NoSchedule', key: 'disktype', value: 'ssd' }] });
    expect(apply(original, patch)).toEqual(patch);
  });

  it('$retainKeys clears the members not listed (Deployment strategy to Recreate)', () => {
    const original = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } };
    expect(apply(original, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } })).toEqual({ spec: { strategy: { type: 'Recreate' } } });
    expect(apply(original, { spec: { strategy: { type: 'Recreate' } } })).toEqual({
      spec: { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
    });
  });

  it('$retainKeys on list entries of a merge,retainKeys list (volume source switch)', () => {
    const original = podSpec({ volumes: [{ name: 'v', hostPath: { path: '/x' } }] });
    const patch = podSpec({ volumes: [{ name: 'v', $retainKeys: ['name', 'emptyDir'], emptyDir: {} }] });
    expect(apply(original, patch)).toEqual(podSpec({ volumes: [{ name: 'v', emptyDir: {} }] }));
  });

  it('$patch: delete removes a list entry by merge key', () => {
    const original = podSpec({ containers: [ctr('a'), ctr('b'), ctr('c')] });
    expect(apply(original, podSpec({ containers: [{ name: 'b', $patch: 'delete' }] }))).toEqual(podSpec({ containers: [ctr('a'), ctr('c')] }));
  });

  it('$patch: replace in a list replaces the whole list', () => {
    const original = podSpec({ containers: [ctr('a', { image: 'x' }), ctr('b')] });
    const patch = podSpec({ containers: [{ $patch: 'replace' }, ctr('c', { image: 'y' })] });
    expect(apply(original, patch)).toEqual(podSpec({ containers: [ctr('c', { image: 'y' })] }));
  });

  it('$patch: replace in a map replaces the map', () => {
    const original = { metadata: { labels: { a: '1', b: '2' } } };
    expect(apply(original, { metadata: { labels: { $patch: 'replace', c: '3' } } })).toEqual({ metadata: { labels: { c: '3' } } });
  });

  it('$patch: delete in a map empties it', () => {
    const original = { spec: { strategy: { type: 'Recreate' }, replicas: 2 } };
    expect(apply(original, { spec: { strategy: { $patch: 'delete' } } })).toEqual({ spec: { strategy: {}, replicas: 2 } });
  });

  it('merges lists of primitives with strategy merge as sets', () => {
    const original = { metadata: { finalizers: ['a', 'b', 'c'] } };
    expect(apply(original, { metadata: { finalizers: ['c', 'd'] } })).toEqual({ metadata: { finalizers: ['a', 'b', 'c', 'd'] } });
    expect(apply(original, { metadata: { finalizers: ['d', 'e'] } })).toEqual({ metadata: { finalizers: ['d', 'e', 'a', 'b', 'c'] } });
  });

  it('$deleteFromPrimitiveList removes every copy of the listed values', () => {
    const original = { metadata: { finalizers: ['a', 'b', 'c', 'b'] } };
    expect(apply(original, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } })).toEqual({ metadata: { finalizers: ['a', 'c'] } });
    expect(apply({ metadata: {} }, { metadata: { '$deleteFromPrimitiveList/finalizers': ['b'] } })).toEqual({ metadata: {} });
  });

  it('$setElementOrder orders a list of primitives', () => {
    const original = { metadata: { finalizers: ['a', 'b', 'c'] } };
    expect(apply(original, { metadata: { '$setElementOrder/finalizers': ['c', 'b', 'a'] } })).toEqual({ metadata: { finalizers: ['c', 'b', 'a'] } });
  });

  it('$setElementOrder orders a merged list of maps and merges the patched entry', () => {
    const original = podSpec({ containers: [ctr('a', { image: 'nginx' }), ctr('b'), ctr('c')] });
    const patch = podSpec({ '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }], containers: [ctr('a', { image: 'x' })] });
    expect(apply(original, patch)).toEqual(podSpec({ containers: [ctr('c'), ctr('a', { image: 'x' }), ctr('b')] }));
  });

  it('$setElementOrder with a deletion (what kubectl apply sends)', () => {
    const original = podSpec({ containers: [ctr('a'), ctr('b'), ctr('c')] });
    const patch = podSpec({
      '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }],
      containers: [{ name: 'b', $patch: 'delete' }],
    });
    expect(apply(original, patch)).toEqual(podSpec({ containers: [ctr('c'), ctr('a')] }));
  });
});

describe('strategic merge patch: merge semantics', () => {
  it('null deletes, maps merge, scalars replace', () => {
    const original = { metadata: { name: 'x', labels: { a: '1', b: '2' } }, spec: { replicas: 1 } };
    expect(apply(original, { metadata: { labels: { a: null, c: '3' } }, spec: { replicas: 3 } })).toEqual({
      metadata: { name: 'x', labels: { b: '2', c: '3' } },
      spec: { replicas: 3 },
    });
  });

  it('merges nested merge lists inside merged entries (ports by containerPort)', () => {
    const original = podSpec({ containers: [ctr('a', { ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }] })] });
    const patch = podSpec({ containers: [ctr('a', { ports: [{ containerPort: 443, protocol: 'TCP' }, { containerPort: 8080 }] })] });
    expect(apply(original, patch)).toEqual(
      podSpec({ containers: [ctr('a', { ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443, protocol: 'TCP' }, { containerPort: 8080 }] })] }),
    );
  });

  it('keeps server-only entries where they were, patch entries in patch order', () => {
    const original = podSpec({ containers: [ctr('a'), ctr('b'), ctr('c')] });
    const patch = podSpec({ containers: [ctr('b', { image: 'z' }), ctr('d')] });
    expect(apply(original, patch)).toEqual(podSpec({ containers: [ctr('a'), ctr('b', { image: 'z' }), ctr('d'), ctr('c')] }));
  });

  it('orders as the preserve-order design describes when there is no $setElementOrder', () => {
    // Live [B, C, A]; patch [A', B', D]: the server-only C comes first, then the patch order.
    const original = podSpec({ containers: [ctr('B'), ctr('C'), ctr('A')] });
    const patch = podSpec({ containers: [ctr('A', { image: "a'" }), ctr('B', { image: "b'" }), ctr('D')] });
    expect(apply(original, patch)).toEqual(podSpec({ containers: [ctr('C'), ctr('A', { image: "a'" }), ctr('B', { image: "b'" }), ctr('D')] }));
  });

  it('reorders live entries by $setElementOrder alone', () => {
    const original = podSpec({ containers: [ctr('B'), ctr('A')] });
    expect(apply(original, podSpec({ '$setElementOrder/containers': [{ name: 'A' }, { name: 'B' }] }))).toEqual(podSpec({ containers: [ctr('A'), ctr('B')] }));
  });

  it('replaces a non-merge list inside an entry (args)', () => {
    const original = podSpec({ containers: [ctr('a', { args: ['1', '2'] })] });
    expect(apply(original, podSpec({ containers: [ctr('a', { args: ['3'] })] }))).toEqual(podSpec({ containers: [ctr('a', { args: ['3'] })] }));
  });

  it('takes a replaced list as written, directives and nulls included (decoding deals with them)', () => {
    const original = podSpec({ tolerations: [{ key: 'a' }] });
    expect(apply(original, podSpec({ tolerations: [{ key: 'b', value: null }, { $patch: 'delete', key: 'c' }] }))).toEqual(
      podSpec({ tolerations: [{ key: 'b', value: null }, { $patch: 'delete', key: 'c' }] }),
    );
  });

  it('replaces maps whose strategy is replace', () => {
    const original = podSpec({ nodeSelector: { a: '1' } });
    expect(apply(original, podSpec({ nodeSelector: { b: '2' } }))).toEqual(podSpec({ nodeSelector: { b: '2' } }));
  });

  it('behaves like JSON merge patch where the schema is unknown', () => {
    const original = podSpec({ extra: { list: [1, 2], m: { x: 1 } }, unknownList: [{ name: 'a' }] });
    const patch = podSpec({ extra: { list: [3], m: { y: 2 } }, unknownList: [{ name: 'b' }] });
    expect(apply(original, patch)).toEqual(podSpec({ extra: { list: [3], m: { x: 1, y: 2 } }, unknownList: [{ name: 'b' }] }));
    expect(applyStrategicMergePatch({ l: [1], m: { a: 1 } }, { l: [2], m: { b: null, c: 1 } }, undefined)).toEqual({ l: [2], m: { a: 1, c: 1 } });
  });

  it('a changed type replaces the value', () => {
    expect(apply({ spec: { replicas: { odd: true } } }, { spec: { replicas: 3 } })).toEqual({ spec: { replicas: 3 } });
  });

  it('drops what carries a $patch where the original has nothing to merge with (kube removeDirectives)', () => {
    expect(apply({}, podSpec({ containers: [ctr('a', { env: [{ name: 'X', value: '1' }] }), { name: 'gone', $patch: 'delete' }] }))).toEqual(
      podSpec({ containers: [ctr('a', { env: [{ name: 'X', value: '1' }] })] }),
    );
    // Whatever the directive: replace, delete, or one kube does not know (no error here).
    expect(apply({ metadata: {} }, { metadata: { labels: { $patch: 'replace', a: '1' }, annotations: { $patch: 'bogus' } } })).toEqual({ metadata: {} });
    expect(apply({ metadata: { labels: 'x' } }, { metadata: { labels: { $patch: 'delete' } } })).toEqual({ metadata: {} });
    // Nulls go first (IgnoreUnmatchedNulls), other directive keys stay for decoding to judge.
    expect(apply({}, { metadata: { labels: { a: '1', b: null, '$setElementOrder/x': [] } } })).toEqual({ metadata: { labels: { a: '1', '$setElementOrder/x': [] } } });
  });

  it('$patch: delete empties an existing map and replace takes the rest as written', () => {
    expect(apply({ data: { a: '1' } }, { data: { $patch: 'delete' } })).toEqual({ data: {} });
    expect(apply({ data: { a: '1' } }, { data: { $patch: 'replace', b: '2', c: null } })).toEqual({ data: { b: '2', c: null } });
  });

  it('appends new entries of a merged list as written', () => {
    const original = podSpec({ containers: [ctr('a')] });
    expect(apply(original, podSpec({ containers: [ctr('b', { image: null })] }))).toEqual(podSpec({ containers: [ctr('b', { image: null }), ctr('a')] }));
  });

  it('a null patch leaves the object unchanged', () => {
    expect(apply({ a: 1 }, null)).toEqual({ a: 1 });
  });
});

describe('strategic merge patch: errors as kube-apiserver reports them', () => {
  const cases: ReadonlyArray<{ name: string; original?: unknown; patch: unknown; code: number; reason: string; message: string }> = [
    {
      name: 'a patch that is not an object',
      patch: [1],
      code: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    { name: '$retainKeys that is not a list', original: { spec: { strategy: {} } }, patch: { spec: { strategy: { $retainKeys: 'type' } } }, code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' },
    {
      name: 'a patched member missing from $retainKeys',
      original: { spec: { strategy: {} } },
      patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } },
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of retainKeys',
    },
    {
      name: 'a malformed $deleteFromPrimitiveList key',
      original: { metadata: {} },
      patch: { metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } },
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of primitive list',
    },
    {
      name: 'a malformed $setElementOrder key',
      original: { metadata: {} },
      patch: { metadata: { $setElementOrderfinalizers: ['a'] } },
      code: 400,
      reason: 'BadRequest',
      message: 'invalid patch format of setElementOrder list',
    },
    {
      name: 'a list of lists',
      original: { metadata: { finalizers: [] } },
      patch: { metadata: { finalizers: [['b']] } },
      code: 422,
      reason: 'Invalid',
      message: 'the server rejected our request due to an error in our request',
    },
    {
      name: 'an entry without the merge key',
      original: podSpec({ containers: [ctr('a')] }),
      patch: podSpec({ containers: [{ image: 'x' }] }),
      code: 500,
      reason: '',
      message: 'map: map[image:x] does not contain declared merge key: name',
    },
    {
      name: '$patch: merge in a list',
      original: podSpec({ containers: [ctr('a')] }),
      patch: podSpec({ containers: [{ name: 'a', $patch: 'merge' }] }),
      code: 500,
      reason: '',
      message: 'merging lists cannot yet be specified in the patch',
    },
    {
      name: 'an unknown $patch in an existing map',
      original: { metadata: { labels: {} } },
      patch: { metadata: { labels: { $patch: 'frob' } } },
      code: 500,
      reason: '',
      message: 'unknown patch type: frob in map: map[$patch:frob]',
    },
    {
      name: 'mixed element types',
      original: { metadata: { finalizers: ['a'] } },
      patch: { metadata: { finalizers: [1] } },
      code: 500,
      reason: '',
      message: 'list element types are not identical: [[a] [1]]',
    },
    {
      name: '$setElementOrder out of step with the patch list',
      original: { metadata: { finalizers: ['a', 'b'] } },
      patch: { metadata: { '$setElementOrder/finalizers': ['a', 'b'], finalizers: ['b', 'a'] } },
      code: 500,
      reason: '',
      message: 'The order in patch list:\n[b a]\n doesn\'t match $setElementOrder list:\n[a b]\n',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const err = apiError(() => applyStrategicMergePatch(c.original ?? {}, c.patch, deployment));
      expect([err.code, err.reason, err.message]).toEqual([c.code, c.reason, c.message]);
    });
  }
});

describe('schema walk', () => {
  it('finds properties, additionalProperties and items', () => {
    const meta = propertySchema(deployment, 'metadata');
    expect(propertySchema(propertySchema(meta, 'labels'), 'anything')).toEqual(str);
    expect(propertySchema(meta, 'nope')).toBeUndefined();
    expect(itemsSchema(propertySchema(meta, 'finalizers'))).toEqual(str);
    expect(propertySchema(undefined, 'x')).toBeUndefined();
  });

  it('reads patch strategies and merge keys', () => {
    expect(patchMeta(mergeList(str, 'name', 'merge,retainKeys'))).toEqual({ strategy: 'merge', retainKeys: true, mergeKey: 'name' });
    expect(patchMeta({ 'x-kubernetes-patch-strategy': 'retainKeys' })).toEqual({ strategy: '', retainKeys: true, mergeKey: '' });
    expect(patchMeta({ 'x-kubernetes-patch-strategy': 'replace' }).strategy).toBe('replace');
    expect(patchMeta(undefined)).toEqual({ strategy: '', retainKeys: false, mergeKey: '' });
  });
});
