/**
 * The extension-apiserver-authentication ConfigMap: the merge kube-apiserver performs (CA bundles
 * unioned without duplicates or expired certificates, header lists unioned, keys only with a
 * front-proxy CA), and the server publishing it in kube-system and restoring it when changed or
 * deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { createCertificateAuthority, issueClientCertificate, type CertKeyPair } from '../../src/server/certs.ts';
import { authenticationInfoData } from '../../src/authn/cluster-authentication-info.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';

let ca1: CertKeyPair;
let ca2: CertKeyPair;
let shortLived: CertKeyPair;
let proxyCa: CertKeyPair;

/** Go's pem.Encode of a certificate: 64-column base64. */
const goPem = (pem: string) => `-----BEGIN CERTIFICATE-----\n${new X509Certificate(pem).raw.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;

beforeAll(async () => {
  ca1 = await createCertificateAuthority('ca-one');
  ca2 = await createCertificateAuthority('ca-two');
  proxyCa = await createCertificateAuthority('front-proxy-ca');
  shortLived = await issueClientCertificate({ caCert: ca1.cert, caKey: ca1.key }, { commonName: 'short', lifetimeMs: 60_000 });
});

describe('authenticationInfoData', () => {
  it('only client-ca-file without a front-proxy CA', () => {
    expect(authenticationInfoData({}, { clientCa: ca1.cert })).toEqual({ 'client-ca-file': goPem(ca1.cert) });
  });

  it('merges with what another server wrote', () => {
    const existing = {
      'client-ca-file': ca2.cert + ca1.cert,
      'requestheader-client-ca-file': ca2.cert,
      'requestheader-username-headers': '["X-Other-User"]',
      'requestheader-allowed-names': '["other-proxy","other-proxy"]',
    };
    const data = authenticationInfoData(existing, {
      clientCa: ca1.cert,
      requestHeaderCa: proxyCa.cert,
      requestHeaderUsernameHeaders: ['X-Remote-User'],
      requestHeaderGroupHeaders: ['X-Remote-Group'],
      requestHeaderExtraHeaderPrefixes: ['X-Remote-Extra-'],
      requestHeaderAllowedNames: ['front-proxy-client'],
    });
    expect(data).toEqual({
      'client-ca-file': goPem(ca2.cert) + goPem(ca1.cert),
      'requestheader-allowed-names': '["other-proxy","front-proxy-client"]',
      'requestheader-client-ca-file': goPem(ca2.cert) + goPem(proxyCa.cert),
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-uid-headers': '[]',
      'requestheader-username-headers': '["X-Other-User","X-Remote-User"]',
    });
  });

  it('drops certificates expired for more than five minutes', () => {
    const later = Date.now() + 10 * 60_000;
    expect(authenticationInfoData({ 'client-ca-file': shortLived.cert }, { clientCa: ca1.cert }, later)).toEqual({ 'client-ca-file': goPem(ca1.cert) });
  });
});

describe('published by the server', () => {
  let t: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kgw-trust-'));
    const caFile = join(dir, 'front-proxy-ca.crt');
    await writeFile(caFile, proxyCa.cert);
    t = await startTestServer({
      config: {
        requestheaderClientCaFile: caFile,
        requestheaderAllowedNames: ['front-proxy-client'],
        requestheaderUsernameHeaders: ['X-Remote-User'],
        requestheaderGroupHeaders: ['X-Remote-Group'],
        requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const path = '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication';
  async function until(ok: (r: Awaited<ReturnType<TestServer['request']>>) => boolean) {
    let r = await t.request('GET', path);
    for (let i = 0; i < 100 && !ok(r); i++) {
      await new Promise((res) => setTimeout(res, 50));
      r = await t.request('GET', path);
    }
    return r;
  }

  it('holds the client CA and the front-proxy settings', async () => {
    const r = await until((x) => x.status === 200);
    expect(r.json.data).toEqual({
      'client-ca-file': goPem(t.server.caCert),
      'requestheader-allowed-names': '["front-proxy-client"]',
      'requestheader-client-ca-file': goPem(proxyCa.cert),
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-uid-headers': '[]',
      'requestheader-username-headers': '["X-Remote-User"]',
    });
  });

  it('is restored when a key is removed, and recreated when deleted', async () => {
    const current = (await until((x) => x.status === 200)).json;
    delete current.data['requestheader-client-ca-file'];
    expect((await t.request('PUT', path, { body: current })).status).toBe(200);
    const restored = await until((x) => x.json?.data?.['requestheader-client-ca-file'] !== undefined);
    expect(restored.json.data['requestheader-client-ca-file']).toBe(goPem(proxyCa.cert));
    expect((await t.request('DELETE', path)).status).toBe(200);
    const recreated = await until((x) => x.status === 200);
    expect(recreated.json.data['client-ca-file']).toBe(goPem(t.server.caCert));
  });
});
