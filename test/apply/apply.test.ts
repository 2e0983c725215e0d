import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.ts';
import { ApiError } from '../../src/api/status-errors.ts';
import { serverSideApply, trackUpdate, type ApplyContext } from '../../src/apply/index.ts';
import type { Schema } from '../../src/schema/types.ts';
import { configMapSchema, deploymentSchema } from './schemas.ts';

const T1 = '2024-01-01T00:00:01Z';
const T2 = '2024-01-01T00:00:02Z';
const T3 = '2024-01-01T00:00:03Z';

function ctx(manager: string, now: string, extra: Partial<ApplyContext> = {}): ApplyContext {
  return { schema: configMapSchema, apiVersion: 'v1', manager, now, ...extra };
}
function apply(live: KubeObject | null, obj: KubeObject, manager: string, now: string, extra: Partial<ApplyContext> & { force?: boolean } = {}): KubeObject {
  return serverSideApply(live, obj, { ...ctx(manager, now, extra), force: extra.force ?? false });
}
function cm(data: Record<string, string>, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...meta }, data };
}
/** An Apply entry; `time` undefined for an applier whose applies never changed the object. */
function applyEntry(manager: string, time: string | undefined, fieldsV1: Record<string, unknown>, apiVersion = 'v1') {
  return { manager, operation: 'Apply', apiVersion, ...(time === undefined ? {} : { time }), fieldsType: 'FieldsV1', fieldsV1 };
}
function updateEntry(manager: string, time: string, fieldsV1: Record<string, unknown>, apiVersion = 'v1') {
  return { manager, operation: 'Update', apiVersion, time, fieldsType: 'FieldsV1', fieldsV1 };
}
function conflictOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a conflict');
}

describe('server-side apply: ownership', () => {
  it('creates the object and records the applier', () => {
    const out = apply(null, cm({ key: 'a' }, { labels: { app: 'x' } }), 'a', T1);
    expect(out).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        labels: { app: 'x' },
        managedFields: [applyEntry('a', T1, { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } })],
      },
      data: { key: 'a' },
    });
    expect(JSON.stringify(out.metadata!.managedFields![0]!.fieldsV1)).toBe('{"f:data":{"f:key":{}},"f:metadata":{"f:labels":{"f:app":{}}}}');
  });

  it('lets two appliers setting the same value share the field', () => {
    const one = apply(null, cm({ key: 'v', a: '1' }), 'a', T1);
    const two = apply(one, cm({ key: 'v' }), 'b', T2);
    expect(two.data).toEqual({ key: 'v', a: '1' });
    // The object did not change: kube does not stamp b's new entry, which sorts first (time 0).
    expect(two.metadata!.managedFields).toEqual([
      applyEntry('b', undefined, { 'f:data': { 'f:key': {} } }),
      applyEntry('a', T1, { 'f:data': { 'f:a': {}, 'f:key': {} } }),
    ]);
    // A sharer changing the value now conflicts with the other.
    const err = conflictOf(() => apply(two, cm({ key: 'w' }), 'b', T3));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .data.key');
  });

  it('fails with 409 listing every conflicting field and owner', () => {
    const one = apply(null, cm({ k1: '1', k2: '2' }), 'a', T1);
    const edited = trackUpdate(one, cm({ k1: '1', k2: '2', k3: '3' }), ctx('kubectl-edit', T2));
    const err = conflictOf(() => apply(edited, cm({ k1: 'x', k2: 'y', k3: 'z' }), 'b', T3));
    expect(err.code).toBe(409);
    expect(err.reason).toBe('Conflict');
    expect(err.message).toBe(
      'Apply failed with 3 conflicts: conflicts with "a":\n- .data.k1\n- .data.k2\nconflicts with "kubectl-edit" using v1:\n- .data.k3',
    );
    expect(err.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: err.message,
      reason: 'Conflict',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.data.k1' },
          { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.data.k2' },
          { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.k3' },
        ],
      },
      code: 409,
    });
  });

  it('force takes the fields and drops owners left with nothing', () => {
    const one = apply(null, cm({ key: 'a' }), 'a', T1);
    const two = apply(one, cm({ key: 'b' }), 'b', T2, { force: true });
    expect(two.data).toEqual({ key: 'b' });
    expect(two.metadata!.managedFields).toEqual([applyEntry('b', T2, { 'f:data': { 'f:key': {} } })]);
  });

  it('removes a field the applier dropped unless someone else owns it', () => {
    const one = apply(null, cm({ k1: '1', k2: '2', k3: '3' }), 'a', T1);
    const two = apply(one, cm({ k3: '3' }), 'b', T2);
    const three = apply(two, cm({ k1: '1' }), 'a', T3);
    expect(three.data).toEqual({ k1: '1', k3: '3' });
    expect(three.metadata!.managedFields).toEqual([
      applyEntry('b', undefined, { 'f:data': { 'f:k3': {} } }),
      applyEntry('a', T3, { 'f:data': { 'f:k1': {} } }),
    ]);
  });

  it('a map emptied by pruning stays as null, so its other owner keeps it (structured-merge-diff RemoveItems)', () => {
    const one = apply(null, cm({ x: '1' }), 'a1', T1);
    const two = apply(one, cm({}), 'a2', T2);
    const { data: _d, ...noData } = cm({});
    const three = apply(two, noData as KubeObject, 'a1', T3);
    // null, not absent: typing and Go decoding drop it when the object is written.
    expect(three.data).toBeNull();
    expect(three.metadata!.managedFields).toEqual([applyEntry('a2', undefined, { 'f:data': {} })]);
  });

  it('compares a null container with a non-empty one by its entries', () => {
    const one = apply(null, cm({ x: '1' }), 'a1', T1);
    const nulled = trackUpdate(one, { ...cm({}), data: null } as unknown as KubeObject, ctx('editor', T2));
    // data.x was removed; data itself neither added nor modified, so editor owns nothing.
    expect(nulled.metadata!.managedFields).toBeUndefined();
  });

  it('rejects managedFields in the applied body and a wrong version', () => {
    const body = cm({ a: '1' }, { managedFields: [] });
    const err = conflictOf(() => apply(null, body, 'a', T1));
    expect([err.code, err.message]).toEqual([400, 'metadata.managedFields must be nil']);
    const err2 = conflictOf(() => apply(null, { ...cm({}), apiVersion: 'v2' }, 'a', T1));
    expect([err2.code, err2.message]).toEqual([400, 'invalid object type: /v2, Kind=ConfigMap']);
  });

  it('keeps the entry time when an apply changes nothing', () => {
    const one = apply(null, cm({ key: 'a' }), 'a', T1);
    const again = apply(one, cm({ key: 'a' }), 'a', T2);
    expect(again.metadata!.managedFields).toEqual([applyEntry('a', T1, { 'f:data': { 'f:key': {} } })]);
    const changed = apply(again, cm({ key: 'b' }), 'a', T3);
    expect(changed.metadata!.managedFields).toEqual([applyEntry('a', T3, { 'f:data': { 'f:key': {} } })]);
  });
});

function deploy(containers: unknown[], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { ...extra, template: { spec: { containers } } },
  };
}
function dctx(manager: string, now: string, schema: Schema = deploymentSchema()): Partial<ApplyContext> {
  return { schema, apiVersion: 'apps/v1', manager, now };
}

describe('server-side apply: lists and maps', () => {
  it('records list-map entries by key and removes an owned entry that was dropped', () => {
    const one = apply(
      null,
      deploy([
        { name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] },
        { name: 'side', image: 'side:1' },
      ]),
      'a',
      T1,
      dctx('a', T1),
    );
    expect(one.metadata!.managedFields).toEqual([
      applyEntry(
        'a',
        T1,
        {
          'f:spec': {
            'f:template': {
              'f:spec': {
                'f:containers': {
                  'k:{"name":"app"}': {
                    '.': {},
                    'f:image': {},
                    'f:name': {},
                    'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                  },
                  'k:{"name":"side"}': { '.': {}, 'f:image': {}, 'f:name': {} },
                },
              },
            },
          },
        },
        'apps/v1',
      ),
    ]);
    const two = apply(one, deploy([{ name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] }]), 'a', T2, dctx('a', T2));
    expect((two.spec as any).template.spec.containers).toEqual([{ name: 'app', image: 'app:1', ports: [{ containerPort: 80 }] }]);
  });

  it('merges list-map entries of two appliers, keeping each one\'s entries', () => {
    const one = apply(null, deploy([{ name: 'app', image: 'app:1' }]), 'a', T1, dctx('a', T1));
    const two = apply(one, deploy([{ name: 'side', image: 'side:1' }]), 'b', T2, dctx('b', T2));
    expect((two.spec as any).template.spec.containers).toEqual([
      { name: 'app', image: 'app:1' },
      { name: 'side', image: 'side:1' },
    ]);
    const err = conflictOf(() => apply(two, deploy([{ name: 'app', image: 'app:2' }]), 'b', T3, dctx('b', T3)));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.template.spec.containers[name="app"].image');
  });

  it('keeps the applied order of shared entries and the live place of the others', () => {
    const c = (name: string) => ({ name, image: name });
    const one = apply(null, deploy([c('a'), c('b'), c('c')]), 'x', T1, dctx('x', T1));
    const two = apply(one, deploy([c('d'), c('c'), c('a')]), 'y', T2, dctx('y', T2));
    expect((two.spec as any).template.spec.containers.map((e: { name: string }) => e.name)).toEqual(['b', 'd', 'c', 'a']);
  });

  it('treats patch-merge-key lists without a list type as list-maps', () => {
    const one = apply(null, deploy([{ name: 'app', env: [{ name: 'A', value: '1' }] }]), 'a', T1, dctx('a', T1));
    const two = apply(one, deploy([{ name: 'app', env: [{ name: 'B', value: '2' }] }]), 'b', T2, dctx('b', T2));
    expect((two.spec as any).template.spec.containers[0].env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]);
  });

  it('replaces lists without markers whole (atomic)', () => {
    const one = apply(null, deploy([{ name: 'app', args: ['x', 'y'] }]), 'a', T1, dctx('a', T1));
    expect((one.metadata!.managedFields![0]!.fieldsV1 as any)['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"app"}']).toEqual({
      '.': {},
      'f:args': {},
      'f:name': {},
    });
    const err = conflictOf(() => apply(one, deploy([{ name: 'app', args: ['z'] }]), 'b', T2, dctx('b', T2)));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.template.spec.containers[name="app"].args');
  });

  it('tracks set lists by value and removes dropped values', () => {
    const fin = (finalizers: string[]): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers } });
    const one = apply(null, fin(['x', 'y']), 'a', T1);
    const two = apply(one, fin(['z']), 'b', T2);
    expect(two.metadata!.finalizers).toEqual(['x', 'y', 'z']);
    const three = apply(two, fin(['x']), 'a', T3);
    expect(three.metadata!.finalizers).toEqual(['x', 'z']);
    expect(three.metadata!.managedFields).toEqual([
      applyEntry('b', T2, { 'f:metadata': { 'f:finalizers': { 'v:"z"': {} } } }),
      applyEntry('a', T3, { 'f:metadata': { 'f:finalizers': { 'v:"x"': {} } } }),
    ]);
  });

  it('owns atomic maps whole', () => {
    const one = apply(null, deploy([], { paused: false }), 'a', T1, dctx('a', T1));
    const withSel = apply(one, { ...deploy([]), spec: { template: { spec: { nodeSelector: { disk: 'ssd' } } } } }, 'a', T2, dctx('a', T2));
    const fields = withSel.metadata!.managedFields![0]!.fieldsV1 as any;
    expect(fields['f:spec']['f:template']['f:spec']).toEqual({ 'f:nodeSelector': {} });
    const other = { ...deploy([]), spec: { template: { spec: { nodeSelector: { zone: 'z' } } } } };
    const err = conflictOf(() => apply(withSel, other, 'b', T3, dctx('b', T3)));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.template.spec.nodeSelector');
    const forced = apply(withSel, other, 'b', T3, { ...dctx('b', T3), force: true });
    expect((forced.spec as any).template.spec.nodeSelector).toEqual({ zone: 'z' });
  });

  it('moves ownership of a field switched from granular to atomic to the owners of its parts', () => {
    const sel = (app: string) => ({ ...deploy([]), spec: { selector: { matchLabels: { app } } } });
    const one = apply(null, sel('x'), 'a', T1, dctx('a', T1));
    expect(one.metadata!.managedFields![0]!.fieldsV1).toEqual({ 'f:spec': { 'f:selector': { 'f:matchLabels': { 'f:app': {} } } } });
    const atomic = deploymentSchema({ selectorAtomic: true });
    const err = conflictOf(() => apply(one, sel('y'), 'b', T2, dctx('b', T2, atomic)));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "a": .spec.selector');
    const again = apply(one, sel('x'), 'a', T2, dctx('a', T2, atomic));
    // Same value: the object is unchanged, so the entry keeps its time though its set changed.
    expect(again.metadata!.managedFields).toEqual([applyEntry('a', T1, { 'f:spec': { 'f:selector': {} } }, 'apps/v1')]);
  });

  it('leaves no entry for an applier that owns nothing', () => {
    const out = apply(null, deploy([]), 'a', T1, dctx('a', T1));
    expect(out.metadata!.managedFields).toBeUndefined();
  });

  it('records an applied empty map as owned', () => {
    const out = apply(null, cm({}), 'a', T1);
    expect(out.metadata!.managedFields).toEqual([applyEntry('a', T1, { 'f:data': {} })]);
  });

  it('treats unstructured objects as granular maps with atomic lists', () => {
    const obj = { apiVersion: 'x.io/v1', kind: 'W', metadata: { name: 'w' }, spec: { items: [1, 2], size: 3 } };
    const out = serverSideApply(null, obj, { schema: undefined, apiVersion: 'x.io/v1', manager: 'a', now: T1, force: false });
    expect(out.metadata!.managedFields).toEqual([applyEntry('a', T1, { 'f:spec': { '.': {}, 'f:items': {}, 'f:size': {} } }, 'x.io/v1')]);
  });
});

describe('update tracking', () => {
  it('records a create as an Update entry with its added fields', () => {
    const out = trackUpdate(null, cm({ a: '1' }, { labels: { l: 'v' } }), ctx('kubectl-create', T1));
    expect(out.metadata!.managedFields).toEqual([
      updateEntry('kubectl-create', T1, { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } }),
    ]);
  });

  it('takes changed fields from an applier without conflict and merges entries of one updater', () => {
    const one = apply(null, cm({ a: '1', b: '2' }), 'a', T1);
    const two = trackUpdate(one, cm({ a: 'x', b: '2' }), ctx('editor', T2));
    const three = trackUpdate(two, cm({ a: 'x', b: '2', c: '3' }), ctx('editor', T3));
    expect(three.metadata!.managedFields).toEqual([
      applyEntry('a', T1, { 'f:data': { 'f:b': {} } }),
      updateEntry('editor', T3, { 'f:data': { 'f:a': {}, 'f:c': {} } }),
    ]);
    // A no-op update adds no entry and keeps times.
    const four = trackUpdate(three, cm({ a: 'x', b: '2', c: '3' }), ctx('other', T3));
    expect(four.metadata!.managedFields).toEqual(three.metadata!.managedFields);
  });

  it('removes deleted fields from every owner', () => {
    const one = apply(null, cm({ a: '1', b: '2' }), 'a', T1);
    const two = trackUpdate(one, cm({ a: '1' }), ctx('editor', T2));
    expect(two.metadata!.managedFields).toEqual([applyEntry('a', T1, { 'f:data': { 'f:a': {} } })]);
  });

  it('merges the oldest of more than ten updaters into ancient-changes', () => {
    let obj = trackUpdate(null, cm({ k0: '0' }), ctx('m0', '2024-01-01T00:00:00Z'));
    for (let i = 1; i <= 10; i++) {
      const data = { ...(obj.data as Record<string, string>), [`k${i}`]: String(i) };
      obj = trackUpdate(obj, cm(data), ctx(`m${i}`, `2024-01-01T00:00:${String(i).padStart(2, '0')}Z`));
    }
    const entries = obj.metadata!.managedFields!;
    expect(entries).toHaveLength(10);
    expect(entries[0]).toEqual(updateEntry('ancient-changes', '2024-01-01T00:00:01Z', { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {} } }));
    expect(entries.slice(1).map((e) => e.manager)).toEqual(['m2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10']);
  });

  it('names subresource updaters in conflicts', () => {
    const one = apply(null, deploy([{ name: 'app' }]), 'a', T1, dctx('a', T1));
    const two = trackUpdate(one, { ...one, spec: { ...(one.spec as object), replicas: 2 } }, {
      schema: deploymentSchema(),
      apiVersion: 'apps/v1',
      manager: 'hpa',
      subresource: 'scale',
      now: T2,
    });
    const err = conflictOf(() => apply(two, { ...deploy([{ name: 'app' }]), spec: { replicas: 5 } }, 'a', T3, dctx('a', T3)));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "hpa" with subresource "scale" using apps/v1: .spec.replicas');
  });

  it('tracks status writes separately', () => {
    const schema = deploymentSchema();
    const one = apply(null, deploy([{ name: 'app', image: 'i' }]), 'a', T1, { ...dctx('a', T1), resetFields: [['status']] });
    const two = trackUpdate(one, { ...one, status: { replicas: 1 } }, {
      schema,
      apiVersion: 'apps/v1',
      manager: 'ctrl',
      subresource: 'status',
      now: T2,
      resetFields: [['spec']],
    });
    expect(two.metadata!.managedFields![1]).toEqual({ ...updateEntry('ctrl', T2, { 'f:status': { '.': {}, 'f:replicas': {} } }, 'apps/v1'), subresource: 'status' });
    const three = apply(two, deploy([{ name: 'app', image: 'j' }]), 'a', T3, { ...dctx('a', T3), resetFields: [['status']] });
    expect(three.status).toEqual({ replicas: 1 });
    expect(three.metadata!.managedFields!.map((e) => [e.manager, e.subresource])).toEqual([
      ['a', undefined],
      ['ctrl', 'status'],
    ]);
  });

  it('resets managedFields for a single empty entry or an empty list, not for null or absent', () => {
    const one = apply(null, cm({ a: '1' }), 'a', T1);
    const reset = trackUpdate(one, cm({ a: '1' }, { managedFields: [{}] }), ctx('editor', T2));
    expect(reset.metadata!.managedFields).toBeUndefined();
    const emptied = trackUpdate(one, cm({ a: '1' }, { managedFields: [] }), ctx('editor', T2));
    expect(emptied.metadata!.managedFields).toBeUndefined();
    const kept = trackUpdate(one, cm({ a: '1' }, { managedFields: null as never }), ctx('editor', T2));
    expect(kept.metadata!.managedFields).toEqual(one.metadata!.managedFields);
    // Objects without managers are tracked again from their next apply.
    const applied = apply(reset, cm({ a: '1', b: '2' }), 'a', T3);
    expect(applied.metadata!.managedFields).toEqual([
      applyEntry('a', T3, { 'f:data': { 'f:a': {}, 'f:b': {} } }),
      updateEntry('before-first-apply', T3, { 'f:data': { '.': {}, 'f:a': {} } }),
    ]);
  });

  it('accepts managedFields written directly by an update', () => {
    const one = apply(null, cm({ a: '1' }), 'a', T1);
    const entries = [applyEntry('z', T1, { 'f:data': { 'f:a': {} } })];
    const out = trackUpdate(one, cm({ a: '1' }, { managedFields: entries }), ctx('editor', T2));
    expect(out.metadata!.managedFields).toEqual(entries);
  });
});

describe('migration from client-side apply', () => {
  const LA = 'kubectl.kubernetes.io/last-applied-configuration';
  function csaCreate(data: Record<string, string>): KubeObject {
    const config = { apiVersion: 'v1', data, kind: 'ConfigMap', metadata: { annotations: {}, name: 'c' } };
    const annotation = `${JSON.stringify(config)}\n`;
    return trackUpdate(null, cm(data, { annotations: { [LA]: annotation } }), ctx('kubectl-client-side-apply', T1));
  }

  it('records the client-side applier as an Update entry', () => {
    expect(csaCreate({ key: 'a' }).metadata!.managedFields).toEqual([
      updateEntry('kubectl-client-side-apply', T1, {
        'f:data': { '.': {}, 'f:key': {} },
        'f:metadata': { 'f:annotations': { '.': {}, [`f:${LA}`]: {} } },
      }),
    ]);
  });

  it('lets kubectl take the fields its annotation set and keeps the annotation in step', () => {
    const live = csaCreate({ key: 'a' });
    const out = apply(live, cm({ key: 'b' }), 'kubectl', T2);
    expect(out.data).toEqual({ key: 'b' });
    expect(out.metadata!.annotations![LA]).toBe('{"apiVersion":"v1","data":{"key":"b"},"kind":"ConfigMap","metadata":{"name":"c"}}\n');
    expect(out.metadata!.managedFields).toEqual([
      applyEntry('kubectl', T2, { 'f:data': { 'f:key': {} } }),
      // The client-side applier keeps the map itself (its `.`), as kube leaves it.
      updateEntry('kubectl-client-side-apply', T1, { 'f:data': {}, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LA}`]: {} } } }),
    ]);
  });

  it('still conflicts for other managers, naming the client-side applier', () => {
    const live = csaCreate({ key: 'a' });
    const err = conflictOf(() => apply(live, cm({ key: 'b' }), 'helm', T2));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key');
  });

  it('still conflicts for kubectl on fields changed since the last client-side apply', () => {
    const live = csaCreate({ key: 'a' });
    const edited = trackUpdate(live, { ...live, data: { key: 'edited' } }, ctx('kubectl-edit', T2));
    const err = conflictOf(() => apply(edited, cm({ key: 'b' }), 'kubectl', T3));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.key');
  });
});
