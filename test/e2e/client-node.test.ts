/**
 * `@kubernetes/client-node` against the server: typed CRUD, and an informer's list-then-watch.
 */
import { describe, expect, it } from 'vitest';
import * as k8s from '@kubernetes/client-node';
import { clientNodeServer } from '../server/client-node.ts';

const env = clientNodeServer();

describe('@kubernetes/client-node', () => {
  it('creates, reads, patches and deletes a ConfigMap', async () => {
    const core = env.kc.makeApiClient(k8s.CoreV1Api);
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'cn1' }, data: { a: '1' } } });
    expect(created.metadata?.uid).toBeTruthy();
    const read = await core.readNamespacedConfigMap({ name: 'cn1', namespace: 'default' });
    expect(read.data).toEqual({ a: '1' });
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    expect(list.items.map((i) => i.metadata?.name)).toContain('cn1');
    await core.deleteNamespacedConfigMap({ name: 'cn1', namespace: 'default' });
    await expect(core.readNamespacedConfigMap({ name: 'cn1', namespace: 'default' })).rejects.toMatchObject({ code: 404 });
  });

  it('runs an informer: initial list, then add and delete events', async () => {
    const core = env.kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(env.kc, '/api/v1/namespaces/default/configmaps', () => core.listNamespacedConfigMap({ namespace: 'default' }));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'inf1' } } });
    await core.deleteNamespacedConfigMap({ name: 'inf1', namespace: 'default' });
    for (let i = 0; i < 50 && !seen.includes('delete:inf1'); i++) await new Promise((r) => setTimeout(r, 100));
    await informer.stop();
    expect(seen).toContain('add:inf1');
    expect(seen).toContain('delete:inf1');
  });
});
