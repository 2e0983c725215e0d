/**
 * /logs (kube's logs handler over --log-dir, as Go's http.ServeFile answers), authorized as a
 * non-resource path; not served without --log-dir; and --livez-grace-period's flag checks.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlagError, parseFlags } from '../../src/server/config.ts';
import { startTestServer, type TestServer } from './harness.ts';

let t: TestServer;
let plain: TestServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-logs-'));
  await writeFile(join(dir, 'apiserver.log'), 'line one\nline two\n');
  await writeFile(join(dir, 'a<b>.log'), 'x');
  await mkdir(join(dir, 'audit'));
  await writeFile(join(dir, 'audit', 'audit.log'), '{"kind":"Event"}\n');
  t = await startTestServer({ config: { logDir: dir } });
  plain = await startTestServer();
});
afterAll(async () => {
  await t?.close();
  await plain?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('/logs', () => {
  it('lists the directory and serves its files as Go does', async () => {
    const list = await t.request('GET', '/logs');
    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(list.text).toBe(
      '<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n<a href="a%3Cb%3E.log">a&lt;b&gt;.log</a>\n<a href="apiserver.log">apiserver.log</a>\n<a href="audit/">audit/</a>\n</pre>\n',
    );
    expect((await t.request('GET', '/logs/')).text).toBe(list.text);
    const file = await t.request('GET', '/logs/apiserver.log');
    expect(file.status).toBe(200);
    expect(file.text).toBe('line one\nline two\n');
    expect(file.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(file.headers['accept-ranges']).toBe('bytes');
    const range = await t.request('GET', '/logs/apiserver.log', { headers: { range: 'bytes=5-7' } });
    expect(range.status).toBe(206);
    expect(range.text).toBe('one');
    const sub = await t.request('GET', '/logs/audit');
    expect(sub.status).toBe(301);
    expect(sub.headers.location).toBe('audit/');
    expect((await t.request('GET', '/logs/audit/')).text).toContain('<a href="audit.log">audit.log</a>');
    expect((await t.request('GET', '/logs/audit/audit.log')).text).toBe('{"kind":"Event"}\n');
    expect((await t.request('GET', '/logs/nope.log')).text).toBe('404 page not found\n');
    // Nothing outside the directory is reachable, however the path is spelled.
    for (const p of ['/logs/../etc/passwd', '/logs/%2e%2e/%2e%2e/etc/passwd', '/logs/audit/..%2F..%2F..%2Fetc%2Fpasswd']) {
      const up = await t.request('GET', p);
      expect([400, 404], p).toContain(up.status);
      expect(up.text).not.toContain('root:');
    }
    expect((await t.request('POST', '/logs/apiserver.log', { body: {} })).status).toBe(405);
    expect((await t.request('GET', '/')).json.paths).toContain('/logs');
  });

  it('is authorized as a non-resource path, and absent without --log-dir', async () => {
    const anon = await t.request('GET', '/logs/apiserver.log', { anonymous: true });
    expect(anon.status).toBe(403);
    expect(anon.json.message).toBe('forbidden: User "system:anonymous" cannot get path "/logs/apiserver.log"');
    const none = await plain.request('GET', '/logs');
    expect(none.status).toBe(404);
    expect(none.text).toBe('404 page not found\n');
    expect((await plain.request('GET', '/')).json.paths).not.toContain('/logs');
  });

  it('takes --log-dir and --livez-grace-period as flags', () => {
    const c = parseFlags(['--log-dir=/var/log/kgw', '--livez-grace-period=30s']);
    expect(c).toMatchObject({ logDir: '/var/log/kgw', livezGracePeriodMs: 30_000 });
    expect(() => parseFlags(['--livez-grace-period=-1s'])).toThrow(FlagError);
    expect(() => parseFlags(['--livez-grace-period=-1s'])).toThrow('--livez-grace-period can not be a negative value');
  });
});
