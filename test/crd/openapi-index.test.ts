/**
 * The `/openapi/v3` index as a client's HTTP cache sees it around a CRD change. kubectl keeps the
 * index in its disk cache and revalidates it with the validators it got (If-None-Match and
 * If-Modified-Since); the index's Last-Modified is the second it was served, so without an ETag a
 * copy fetched in the same second as the CRD's creation was confirmed as current, and `kubectl
 * explain` answered `couldn't find resource` for the new kind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { createCrd, schemalessCrd } from './crd-setup.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const paths = (text: string) => Object.keys((JSON.parse(text) as { paths: Record<string, unknown> }).paths);

/** The conditional GET gregjones/httpcache (client-go's disk cache) sends for a stored response. */
function revalidate(etag: unknown, lastModified: unknown) {
  const headers: Record<string, string> = {};
  if (typeof etag === 'string') headers['if-none-match'] = etag;
  if (typeof lastModified === 'string') headers['if-modified-since'] = lastModified;
  return t.request('GET', '/openapi/v3', { headers });
}

describe('the /openapi/v3 index and client caches', () => {
  it('a copy from before a CRD was added is not confirmed, even within the same second', async () => {
    const before = await t.request('GET', '/openapi/v3');
    expect(before.status).toBe(200);
    expect(paths(before.text)).not.toContain('apis/idx.example.com/v1');
    expect(before.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);

    await createCrd(t, schemalessCrd('idx.example.com', 'notes', 'Note'));
    const after = await revalidate(before.headers.etag, before.headers['last-modified']);
    expect(after.status).toBe(200);
    expect(paths(after.text)).toContain('apis/idx.example.com/v1');
    expect(after.headers.etag).not.toBe(before.headers.etag);

    // Unchanged since: confirmed without a body.
    const again = await revalidate(after.headers.etag, after.headers['last-modified']);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('kubectl explains a kind added after its cached index', async () => {
    // A first explain caches the index; the CRD comes within the same second or so.
    expect((await t.kubectl(['explain', 'configmaps'])).stdout).toContain('KIND:       ConfigMap');
    await createCrd(t, schemalessCrd('idx.example.com', 'memos', 'Memo'));
    const explain = await t.kubectl(['explain', 'memos']);
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toMatch(/GROUP:\s+idx.example.com\nKIND:\s+Memo\nVERSION:\s+v1\n/);
    // A schema without a description: kube-apiserver publishes none, and kubectl says so.
    expect(explain.stdout).toContain('DESCRIPTION:\n    <empty>\n');
  });
});
