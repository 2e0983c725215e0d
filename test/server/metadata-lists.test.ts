/** Duplicate finalizers and owner references, handled as kube-apiserver handles them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type Response } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const base = '/api/v1/namespaces/default/configmaps';
const warningsOf = (r: Response): string[] => ([] as string[]).concat((r.headers.warning as string[] | string | undefined) ?? []);
const dupWarning = (uid: string, afterAdmission = false) =>
  `299 - ".metadata.ownerReferences contains duplicate entries${afterAdmission ? ' after mutating admission happens' : ''}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${uid}"`;

async function ownerRef(name: string) {
  const o = await t.request('POST', base, { body: { metadata: { name }, data: {} } });
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: o.json.metadata.uid as string };
}

describe('finalizers', () => {
  it('duplicate finalizers are accepted and kept, in order', async () => {
    const r = await t.request('POST', base, { body: { metadata: { name: 'fin-dup', finalizers: ['example.com/a', 'example.com/a', 'example.com/b'] }, data: {} } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.finalizers).toEqual(['example.com/a', 'example.com/a', 'example.com/b']);
    const put = await t.request('PUT', `${base}/fin-dup`, { body: { metadata: { name: 'fin-dup', finalizers: ['example.com/b', 'example.com/b'] }, data: {} } });
    expect(put.status).toBe(200);
    expect(put.json.metadata.finalizers).toEqual(['example.com/b', 'example.com/b']);
    await t.request('PATCH', `${base}/fin-dup`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
  });
});

describe('ownerReferences', () => {
  it('a create with a repeated owner reference keeps one and warns with the duplicate uid', async () => {
    const ref = await ownerRef('owner-a');
    const r = await t.request('POST', base, { body: { metadata: { name: 'dep-a', ownerReferences: [ref, ref] }, data: {} } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.ownerReferences).toEqual([ref]);
    expect(warningsOf(r)).toEqual([dupWarning(ref.uid)]);
    expect((await t.request('GET', `${base}/dep-a`)).json.metadata.ownerReferences).toEqual([ref]);
  });

  it('a PUT is deduplicated the same way', async () => {
    const ref = await ownerRef('owner-b');
    await t.request('POST', base, { body: { metadata: { name: 'dep-b' }, data: {} } });
    const r = await t.request('PUT', `${base}/dep-b`, { body: { metadata: { name: 'dep-b', ownerReferences: [ref, ref, ref] }, data: {} } });
    expect(r.status).toBe(200);
    expect(r.json.metadata.ownerReferences).toEqual([ref]);
    expect(warningsOf(r)).toEqual([dupWarning(`${ref.uid}, ${ref.uid}`)]);
  });

  it('a patch is deduplicated after patching, with the after-admission wording', async () => {
    const ref = await ownerRef('owner-c');
    await t.request('POST', base, { body: { metadata: { name: 'dep-c' }, data: {} } });
    const r = await t.request('PATCH', `${base}/dep-c`, {
      body: { metadata: { ownerReferences: [ref, ref] } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(200);
    expect(r.json.metadata.ownerReferences).toEqual([ref]);
    expect(warningsOf(r)).toEqual([dupWarning(ref.uid, true)]);
  });

  it('references with one uid but different content are both kept, without a warning', async () => {
    const ref = await ownerRef('owner-d');
    const other = { ...ref, controller: true };
    const r = await t.request('POST', base, { body: { metadata: { name: 'dep-d', ownerReferences: [ref, other] }, data: {} } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.ownerReferences).toEqual([ref, other]);
    expect(warningsOf(r)).toEqual([]);
  });
});
