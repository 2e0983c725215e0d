/**
 * `@kubernetes/client-node` with custom resources: ApiextensionsV1Api creates the CRD,
 * CustomObjectsApi does CRUD (merge patch too), and a Watch sees the changes.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { clientNodeServer } from '../server/client-node.ts';

// Loaded through the client's own YAML loader: its models name some JSON fields differently (`_default`).
const crd = k8s.loadYaml<k8s.V1CustomResourceDefinition>(readFileSync(new URL('../fixtures/crd-databases.yaml', import.meta.url), 'utf8'));
const coords = { group: 'ops.example.com', version: 'v1', namespace: 'default', plural: 'databases' };

const env = clientNodeServer();

describe('@kubernetes/client-node and custom resources', () => {
  it('creates the CRD and waits for Established', async () => {
    const ext = env.kc.makeApiClient(k8s.ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({ body: crd });
    let established = false;
    for (let i = 0; i < 100 && !established; i++) {
      const got = await ext.readCustomResourceDefinition({ name: 'databases.ops.example.com' });
      established = (got.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
      if (!established) await new Promise((r) => setTimeout(r, 20));
    }
    expect(established).toBe(true);
  });

  it('does CRUD through CustomObjectsApi and watches it', async () => {
    const api = env.kc.makeApiClient(k8s.CustomObjectsApi);
    const seen: string[] = [];
    const watch = new k8s.Watch(env.kc);
    const req = await watch.watch('/apis/ops.example.com/v1/namespaces/default/databases', {}, (type, obj: { metadata: { name: string } }) => seen.push(`${type} ${obj.metadata.name}`), () => {});
    const created = (await api.createNamespacedCustomObject({ ...coords, body: { apiVersion: 'ops.example.com/v1', kind: 'Database', metadata: { name: 'cn' }, spec: { engine: 'mysql', version: '8.0' } } })) as { spec: Record<string, unknown> };
    expect(created.spec.replicas).toBe(1);
    const patched = (await api.patchNamespacedCustomObject(
      { ...coords, name: 'cn', body: { spec: { replicas: 2 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as { spec: Record<string, unknown> };
    expect(patched.spec.replicas).toBe(2);
    const list = (await api.listNamespacedCustomObject(coords)) as { items: { metadata: { name: string } }[] };
    expect(list.items.map((i) => i.metadata.name)).toEqual(['cn']);
    await api.deleteNamespacedCustomObject({ ...coords, name: 'cn' });
    await expect(api.getNamespacedCustomObject({ ...coords, name: 'cn' })).rejects.toMatchObject({ code: 404 });
    for (let i = 0; i < 100 && !seen.includes('DELETED cn'); i++) await new Promise((r) => setTimeout(r, 20));
    req.abort();
    expect(seen).toEqual(['ADDED cn', 'MODIFIED cn', 'DELETED cn']);
  });
});
