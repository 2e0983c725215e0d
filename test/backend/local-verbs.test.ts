/**
 * The local backend served without HTTP: typed requests in, typed results or ApiErrors out, over a
 * real ResourceStore on the in-memory store. What the front door adds (negotiation, encoding) is
 * not here, which is the point: a backend needs no server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinResourceTypes, findResourceType } from '../../src/api/builtin.ts';
import { isApiError } from '../../src/api/status-errors.ts';
import { localVerbs } from '../../src/backend/local/verbs.ts';
import type { ResourceRequest } from '../../src/backend/types.ts';
import { defaultFeatureGates } from '../../src/features/gates.ts';
import type { ServedResource } from '../../src/registry/resource-catalog.ts';
import { ResourceStore, type WriteContext } from '../../src/registry/resource-store.ts';
import { decodeStored } from '../../src/registry/stored-object.ts';
import type { ResourceRequestInfo, ResourceVerb } from '../../src/request/request-info.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import { WatchCache } from '../../src/storage/watch-cache.ts';
import type { KubeObject } from '../../src/api/types.ts';

const rt = findResourceType(builtinResourceTypes, '', 'v1', 'configmaps')!;
const store = new MemoryStore();
const cache = new WatchCache<KubeObject>({ store, prefix: rt.storagePrefix, decode: decodeStored, historyMs: 60_000 });
/** What the admission hook saw of each write: who asks, and the field manager. */
const admitted: { user?: string; manager?: string; operation?: string }[] = [];
const hooks = { mutate: (_op: string, _obj: unknown, _old: unknown, ctx: WriteContext) => void admitted.push({ user: ctx.user?.username, manager: ctx.manager, operation: ctx.operation }) };
const target: ServedResource = { rt, store: new ResourceStore(rt, store, cache, hooks, () => []) };
const features = defaultFeatureGates();

beforeAll(() => cache.start());
afterAll(() => cache.stop());

function request(verb: ResourceVerb, name: string, opts: { body?: unknown; contentType?: string; query?: string } = {}): ResourceRequest {
  const info: ResourceRequestInfo = {
    isResourceRequest: true,
    path: `/api/v1/namespaces/ns/configmaps${name ? `/${name}` : ''}`,
    verb,
    apiPrefix: 'api',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'configmaps',
    subresource: '',
    namespace: 'ns',
    name,
  };
  const bytes = opts.body === undefined ? undefined : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
  return {
    info,
    query: new URLSearchParams(opts.query ?? ''),
    user: { username: 'alice', groups: ['system:authenticated'], extra: {} },
    body: { contentType: opts.contentType ?? (bytes ? 'application/json' : undefined), bytes },
    userAgent: 'kubectl/v1.32.4 (linux/amd64) kubernetes/abcdef0',
    features,
    auditAnnotations: {},
    warnings: [],
  };
}

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' }, ...extra });

describe('local backend verbs', () => {
  it('creates, reads, patches, applies and deletes with typed results', async () => {
    const created = await localVerbs.create(target, request('create', '', { body: configMap('one') }));
    expect(created.code).toBe(201);
    expect(created.object.metadata?.namespace).toBe('ns');
    // Admission sees the caller, and the default field manager derived from the User-Agent as kube derives it.
    expect(admitted.at(-1)).toEqual({ user: 'alice', manager: 'kubectl', operation: 'create' });

    const read = await localVerbs.get(target, request('get', 'one'));
    expect(read.code).toBe(200);
    expect(read.entry).toBeDefined();
    expect(read.object.data).toEqual({ a: 'b' });

    const patched = await localVerbs.patch(target, request('patch', 'one', { body: { data: { c: 'd' } }, contentType: 'application/merge-patch+json' }));
    expect(patched.code).toBe(200);
    expect(patched.object.data).toEqual({ a: 'b', c: 'd' });

    const applied = await localVerbs.patch(target, request('patch', 'two', { body: configMap('two'), contentType: 'application/apply-patch+yaml', query: 'fieldManager=me' }));
    expect(applied.code).toBe(201);

    const listed = await localVerbs.list(target, request('list', ''));
    expect(listed.outcome.entries.map((e) => e.value.metadata?.name)).toEqual(['one', 'two']);

    const deleted = await localVerbs.delete(target, request('delete', 'one'));
    expect(deleted).toMatchObject({ kind: 'value', code: 200, value: { kind: 'Status', status: 'Success', details: { name: 'one', kind: 'configmaps' } } });
    const removed = await localVerbs.deleteCollection(target, request('deletecollection', ''));
    expect(removed.value).toMatchObject({ kind: 'ConfigMapList', items: [{ metadata: { name: 'two' } }] });
  });

  it('records warnings on the request, also when the verb then fails', async () => {
    const warned = request('create', '', { body: configMap('three', { bogus: 1 }) });
    await localVerbs.create(target, warned);
    expect(warned.warnings).toEqual(['unknown field "bogus"']);

    // The body decodes (and warns) before the store finds no such object.
    const failing = request('update', 'absent', { body: configMap('absent', { bogus: 1 }) });
    const err = await localVerbs.update(target, failing).catch((e: unknown) => e);
    expect(isApiError(err) && err.code).toBe(404);
    expect(failing.warnings).toEqual(['unknown field "bogus"']);
  });

  it('answers kube errors as ApiErrors: bad options, bad bodies, missing objects', async () => {
    const codeOf = (p: Promise<unknown>) => p.then(() => 0, (e: unknown) => (isApiError(e) ? e.code : -1));
    expect(await codeOf(localVerbs.create(target, request('create', '', { body: configMap('x'), query: 'dryRun=Bogus' })))).toBe(422);
    expect(await codeOf(localVerbs.create(target, request('create', '', { body: '{bad' })))).toBe(400);
    expect(await codeOf(localVerbs.create(target, request('create', '', { body: configMap('x'), contentType: 'text/plain' })))).toBe(415);
    expect(await codeOf(localVerbs.get(target, request('get', 'missing')))).toBe(404);
    expect(await codeOf(localVerbs.patch(target, request('patch', 'missing', { body: {}, contentType: 'application/merge-patch+json' })))).toBe(404);
  });
});
