/**
 * What a watch sends for the representation asked (as kube-apiserver v1.32.4): metadata-only
 * watches get PartialObjectMetadata objects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectWatch, startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'w1', labels: { a: 'b' } }, data: { k: 'v' } } });
});
afterAll(async () => {
  await t?.close();
});

describe('watch representations', () => {
  it('sends PartialObjectMetadata objects to a metadata-only watch', async () => {
    const { status, events } = await collectWatch(t.server, '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0', (ev) => ev.length >= 1, {
      headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' },
    });
    expect(status).toBe(200);
    expect(events[0]!.type).toBe('ADDED');
    expect(events[0]!.object.kind).toBe('PartialObjectMetadata');
    expect(events[0]!.object.apiVersion).toBe('meta.k8s.io/v1');
    expect(events[0]!.object.metadata.labels).toEqual({ a: 'b' });
    expect(events[0]!.object.data).toBeUndefined();
  });

  it('sends a metadata-only watch-list its bookmark and list blueprint as PartialObjectMetadata, as client-go\'s metadata client decodes them', async () => {
    const path = '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan';
    const { events } = await collectWatch(t.server, path, (ev) => ev.some((e) => e.type === 'BOOKMARK'), {
      headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json' },
    });
    const bookmark = events.find((e) => e.type === 'BOOKMARK')!;
    expect(bookmark.object.kind).toBe('PartialObjectMetadata');
    expect(bookmark.object.apiVersion).toBe('meta.k8s.io/v1');
    const annotations = bookmark.object.metadata.annotations;
    expect(annotations['k8s.io/initial-events-end']).toBe('true');
    const blueprint = Buffer.from(annotations['kubernetes.io/initial-events-list-blueprint'], 'base64').toString();
    expect(blueprint).toBe('{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":null}\n');
  });
});
