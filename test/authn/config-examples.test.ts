/**
 * The client-side kubeconfig examples under config/ work with the real kubectl once their
 * placeholders are filled: a client certificate, and a bearer token (a service-account token).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';

let t: TestServer;
let dir: string;
beforeAll(async () => {
  t = await startTestServer({ config: { authorizationModes: ['AlwaysAllow'] } });
  dir = await mkdtemp(join(tmpdir(), 'kgw-examples-'));
  await writeFile(join(dir, 'ca.crt'), t.server.caCert);
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The example with the server's URL, kept in `dir` so its relative paths resolve there. */
async function example(name: string, replacements: Record<string, string> = {}): Promise<string> {
  let text = (await readFile(join(__dirname, '../../config', name), 'utf8')).replace('https://127.0.0.1:6443', t.server.url);
  for (const [from, to] of Object.entries(replacements)) text = text.replace(from, to);
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function whoami(kubeconfig: string) {
  const r = await t.kubectl(['--kubeconfig', kubeconfig, 'auth', 'whoami', '-o', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).status.userInfo;
}

describe('config/ client examples', () => {
  it('client-certificate.example.kubeconfig authenticates as the certificate subject', async () => {
    await writeFile(join(dir, 'alice.crt'), t.server.adminCert);
    await writeFile(join(dir, 'alice.key'), t.server.adminKey);
    const cn = new (await import('node:crypto')).X509Certificate(t.server.adminCert).subject.match(/^CN=(.*)$/m)![1];
    expect((await whoami(await example('client-certificate.example.kubeconfig'))).username).toBe(cn);
  });

  it('bearer-token.example.kubeconfig authenticates with a service-account token', async () => {
    expect((await t.request('POST', '/api/v1/namespaces/default/serviceaccounts', { body: { metadata: { name: 'robot' } } })).status).toBe(201);
    const token = (await t.request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', { body: { spec: {} } })).json.status.token as string;
    const user = await whoami(await example('bearer-token.example.kubeconfig', { 'REPLACE-WITH-TOKEN': token }));
    expect(user.username).toBe('system:serviceaccount:default:robot');
    expect(user.groups).toEqual(['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
  });
});
