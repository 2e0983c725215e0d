/**
 * Server-side apply end to end with the real kubectl (v1.32): create, a conflicting second
 * manager, forcing, the migration from client-side apply, and diff --server-side.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, writeTemp, type TestServer } from '../server/harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'ssa' } } });
});
afterAll(async () => {
  await t?.close();
});

const cm = (name: string, data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ssa\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"`)
    .join('\n')}\n`;

async function getJson(name: string) {
  const r = await t.kubectl(['get', 'cm', name, '-n', 'ssa', '-o', 'json', '--show-managed-fields']);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe('kubectl apply --server-side', () => {
  it('creates, conflicts with a second manager, and forces', async () => {
    const file = await writeTemp(t.dataDir, 'ssa1.yaml', cm('ssa1', { a: '1', b: '2' }));
    const created = await t.kubectl(['apply', '--server-side', '-f', file]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('configmap/ssa1 serverside-applied');
    const obj = await getJson('ssa1');
    expect(obj.metadata.managedFields[0]).toMatchObject({ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } });

    const other = await writeTemp(t.dataDir, 'ssa1-other.yaml', cm('ssa1', { a: 'other' }));
    const conflict = await t.kubectl(['apply', '--server-side', '--field-manager=other', '-f', other]);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    expect(conflict.stderr).toContain('--force-conflicts');

    const forced = await t.kubectl(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other]);
    expect(forced.code).toBe(0);
    const after = await getJson('ssa1');
    expect(after.data).toEqual({ a: 'other', b: '2' });
    const owners = Object.fromEntries(after.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    expect(owners.other).toEqual({ 'f:data': { 'f:a': {} } });
    expect(owners.kubectl).toEqual({ 'f:data': { 'f:b': {} } });
  });

  it('takes over an object created by client-side apply', async () => {
    const file = await writeTemp(t.dataDir, 'csa.yaml', cm('csa', { a: '1', b: '2' }));
    expect((await t.kubectl(['apply', '-f', file])).code).toBe(0);
    const before = await getJson('csa');
    expect(before.metadata.managedFields.map((e: any) => e.manager)).toContain('kubectl-client-side-apply');

    await writeTemp(t.dataDir, 'csa.yaml', cm('csa', { a: 'changed' }));
    const migrated = await t.kubectl(['apply', '--server-side', '-f', file]);
    expect(migrated.code).toBe(0);
    const after = await getJson('csa');
    // b was only in the old client-side configuration: server-side apply removed it.
    expect(after.data).toEqual({ a: 'changed' });
    const csa = after.metadata.managedFields.find((e: any) => e.manager === 'kubectl-client-side-apply');
    expect(csa?.fieldsV1?.['f:data']).toBeUndefined();
    expect(after.metadata.managedFields.find((e: any) => e.manager === 'kubectl')).toMatchObject({ operation: 'Apply' });
  });

  it('diffs against a server-side dry run', async () => {
    const file = await writeTemp(t.dataDir, 'ssa1-diff.yaml', cm('ssa1', { b: 'diffed' }));
    const d = await t.kubectl(['diff', '--server-side', '--force-conflicts', '-f', file]);
    expect(d.code).toBe(1);
    expect(d.stdout).toContain('+  b: diffed');
    expect((await getJson('ssa1')).data.b).toBe('2');
  });
});
