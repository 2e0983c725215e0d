/**
 * Custom resources with the real kubectl: apply a CRD, wait for Established, create and list
 * resources (printer columns, -o wide, short names, categories), scale, and delete the CRD.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { startTestServer, type TestServer } from '../server/harness.ts';

const crdFile = fileURLToPath(new URL('../fixtures/crd-databases.yaml', import.meta.url));
const resource = `apiVersion: ops.example.com/v1
kind: Database
metadata: {name: orders, namespace: default}
spec:
  engine: postgres
  version: "16.2"
  replicas: 2
  storage: {size: 5Gi}
`;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('kubectl and custom resources', () => {
  it('applies a CRD and waits for Established', async () => {
    const apply = await t.kubectl(['apply', '-f', crdFile]);
    expect(apply.stderr).toBe('');
    expect(apply.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/databases.ops.example.com created');
    const wait = await t.kubectl(['wait', '--for=condition=Established', 'crd/databases.ops.example.com', '--timeout=20s']);
    expect(wait.stdout).toContain('condition met');
  });

  it('creates and lists with printer columns, short names and categories', async () => {
    const create = await t.kubectl(['apply', '-f', '-'], { input: resource });
    expect(create.stdout).toContain('database.ops.example.com/orders created');
    const get = await t.kubectl(['get', 'db']);
    expect(get.stdout.split('\n')[0]).toMatch(/^NAME\s+ENGINE\s+REPLICAS\s+PHASE\s+AGE$/);
    // (No phase yet: an empty cell, as kube-apiserver sends null.)
    expect(get.stdout).toMatch(/orders\s+postgres\s+2\s+\d+s\n/);
    const wide = await t.kubectl(['get', 'databases', '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toMatch(/STORAGE/);
    expect(wide.stdout).toContain('5Gi');
    const category = await t.kubectl(['get', 'ops']);
    expect(category.stdout).toMatch(/orders\s+postgres/);
  });

  it('scales through the scale subresource and explains the schema', async () => {
    const scale = await t.kubectl(['scale', 'database/orders', '--replicas=3']);
    expect(scale.stdout).toContain('database.ops.example.com/orders scaled');
    const json = await t.kubectl(['get', 'database', 'orders', '-o', 'jsonpath={.spec.replicas}']);
    expect(json.stdout).toBe('3');
    const explain = await t.kubectl(['explain', 'databases.spec.engine']);
    expect(explain.stdout, explain.stderr).toContain('The database engine.');
  });

  it('applies server-side with list-map markers and reports conflicts, and edits', async () => {
    const users = (names: string[]) => `${resource.replace('replicas: 2', 'replicas: 3')}  users:\n${names.map((n) => `  - name: ${n}\n`).join('')}`;
    const a = await t.kubectl(['apply', '--server-side', '--field-manager=team-a', '-f', '-'], { input: users(['alice']) });
    expect(a.stdout).toContain('database.ops.example.com/orders serverside-applied');
    const b = await t.kubectl(['apply', '--server-side', '--field-manager=team-b', '-f', '-'], { input: `apiVersion: ops.example.com/v1\nkind: Database\nmetadata: {name: orders, namespace: default}\nspec:\n  engine: postgres\n  version: "16.2"\n  users:\n  - name: bob\n` });
    expect(b.code).toBe(0);
    const names = await t.kubectl(['get', 'database', 'orders', '-o', 'jsonpath={.spec.users[*].name}']);
    expect(names.stdout.split(' ').sort()).toEqual(['alice', 'bob']);
    const conflict = await t.kubectl(['apply', '--server-side', '--field-manager=team-b', '-f', '-'], { input: `apiVersion: ops.example.com/v1\nkind: Database\nmetadata: {name: orders, namespace: default}\nspec:\n  engine: postgres\n  version: "16.2"\n  replicas: 7\n` });
    expect(conflict.code).not.toBe(0);
    // replicas is owned by team-a and by the earlier `kubectl scale` (through the scale subresource).
    expect(conflict.stderr).toContain('Apply failed with 2 conflicts: conflicts with "kubectl" with subresource "scale" using ops.example.com/v1:\n- .spec.replicas\nconflicts with "team-a":\n- .spec.replicas');
    process.env.KUBE_EDITOR = `sed -i -e 's/replicas: 3/replicas: 5/'`;
    try {
      const edit = await t.kubectl(['edit', 'database', 'orders']);
      expect(edit.stdout).toContain('database.ops.example.com/orders edited');
    } finally {
      delete process.env.KUBE_EDITOR;
    }
    const replicas = await t.kubectl(['get', 'database', 'orders', '-o', 'jsonpath={.spec.replicas}']);
    expect(replicas.stdout).toBe('5');
  });

  it('deletes the CRD and its resources', async () => {
    const del = await t.kubectl(['delete', 'crd', 'databases.ops.example.com', '--timeout=20s']);
    expect(del.stdout).toContain('deleted');
    const get = await t.kubectl(['get', 'databases']);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toMatch(/NotFound|doesn't have a resource type/);
    const crds = await t.kubectl(['get', 'crd', 'databases.ops.example.com']);
    expect(crds.stderr).toContain('customresourcedefinitions.apiextensions.k8s.io "databases.ops.example.com" not found');
  });
});
