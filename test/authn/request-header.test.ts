/**
 * The authenticating proxy over real TLS: a proxy certificate from the front-proxy CA (with an
 * allowed CN) may name the user in headers; the same headers from anyone else are ignored.
 */
import https from 'node:https';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { parseFlags } from '../../src/server/config.ts';
import { createCertificateAuthority, issueClientCertificate, type CertKeyPair } from '../../src/server/certs.ts';

const dir = mkdtempSync(join(tmpdir(), 'kg-reqheader-'));
let t: TestServer;
let proxy: CertKeyPair;
let strangerProxy: CertKeyPair;
let foreign: CertKeyPair;

beforeAll(async () => {
  const ca = await createCertificateAuthority('front-proxy-ca');
  const caPair = { caCert: ca.cert, caKey: ca.key };
  proxy = await issueClientCertificate(caPair, { commonName: 'front-proxy-client' });
  strangerProxy = await issueClientCertificate(caPair, { commonName: 'not-allowed' });
  const otherCa = await createCertificateAuthority('other');
  foreign = await issueClientCertificate({ caCert: otherCa.cert, caKey: otherCa.key }, { commonName: 'front-proxy-client' });
  const caFile = join(dir, 'front-proxy-ca.crt');
  writeFileSync(caFile, ca.cert);
  // The server's flags are the example's (config/front-proxy.example.sh), its CA file put here.
  const example = readFileSync(join(__dirname, '../../config/front-proxy.example.sh'), 'utf8');
  const flags = parseFlags((example.match(/--requestheader-[a-z-]+=\S+/g) ?? []).map((f) => f.replace('=front-proxy-ca.crt', `=${caFile}`)));
  if ('help' in flags) throw new Error(flags.help);
  expect(flags.requestheaderClientCaFile).toBe(caFile);
  t = await startTestServer({
    config: {
      authorizationModes: ['AlwaysAllow'],
      requestheaderClientCaFile: flags.requestheaderClientCaFile,
      requestheaderAllowedNames: flags.requestheaderAllowedNames,
      requestheaderUsernameHeaders: flags.requestheaderUsernameHeaders,
      requestheaderGroupHeaders: flags.requestheaderGroupHeaders,
      requestheaderExtraHeadersPrefix: flags.requestheaderExtraHeadersPrefix,
    },
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function whoami(client: CertKeyPair | undefined, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    const req = https.request(
      `${t.server.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
      {
        method: 'POST',
        ca: t.server.caCert,
        ...(client ? { cert: client.cert, key: client.key } : {}),
        headers: { 'content-type': 'application/json', ...headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const identity = { 'x-remote-user': 'alice', 'x-remote-group': 'devs', 'x-remote-extra-scopes%2Fmain': 'read', 'X-Remote-Extra-Team': 'blue' };

describe('request-header authentication', () => {
  it('takes the user, groups and extra from a verified proxy', async () => {
    const res = await whoami(proxy, identity);
    expect(res.status).toBe(201);
    expect(res.json.status.userInfo).toEqual({
      username: 'alice',
      groups: ['devs', 'system:authenticated'],
      extra: { 'scopes/main': ['read'], team: ['blue'] },
    });
  });

  it('takes every line of a repeated group or extra header as its own value (Node would join them with ", ")', async () => {
    const res = await whoami(proxy, { 'x-remote-user': 'alice', 'x-remote-group': ['devs', 'ops'], 'x-remote-extra-team': ['blue', 'red'] } as unknown as Record<string, string>);
    expect(res.json.status.userInfo).toEqual({ username: 'alice', groups: ['devs', 'ops', 'system:authenticated'], extra: { team: ['blue', 'red'] } });
  });

  it('ignores the headers without a proxy certificate', async () => {
    const res = await whoami(undefined, identity);
    expect(res.json.status.userInfo.username).toBe('system:anonymous');
  });

  it('refuses a proxy certificate from another CA or with a CN not allowed', async () => {
    for (const cert of [foreign, strangerProxy]) {
      const res = await whoami(cert, identity);
      expect(res.status).toBe(401);
      expect(res.json.reason).toBe('Unauthorized');
    }
  });

  it('falls through to other methods when the proxy names no user', async () => {
    const res = await whoami(proxy, { 'x-remote-group': 'devs' });
    // The proxy's certificate is not from the client CA either: nothing authenticates it.
    expect(res.status).toBe(401);
  });
});
