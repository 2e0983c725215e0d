import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, ensureCertificates, issueClientCertificate, type ClusterCertificates } from '../../src/server/certs.ts';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-certs-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('ensureCertificates', () => {
  let dataDir: string;
  let first: ClusterCertificates;

  it('creates a CA, a serving certificate and an admin certificate in a fresh data dir', async () => {
    dataDir = join(tempDir(), 'nested', 'data');
    first = await ensureCertificates(dataDir);

    const ca = new X509Certificate(first.caCert);
    expect(ca.subject).toBe('CN=kube-gateway-ca');
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca)).toBe(true);
    const caYears = (Date.parse(ca.validTo) - Date.parse(ca.validFrom)) / (365 * 24 * 3600 * 1000);
    expect(caYears).toBeGreaterThanOrEqual(10);
    expect(caYears).toBeLessThan(10.1);

    const server = new X509Certificate(first.serverCert);
    expect(server.ca).toBe(false);
    expect(server.checkIssued(ca) && server.verify(ca.publicKey)).toBe(true);
    expect(server.keyUsage).toEqual([SERVER_AUTH]);
    expect(server.subjectAltName?.split(', ').sort()).toEqual(
      [
        'DNS:localhost',
        'DNS:kubernetes',
        'DNS:kubernetes.default',
        'DNS:kubernetes.default.svc',
        'IP Address:127.0.0.1',
        'IP Address:0:0:0:0:0:0:0:1',
      ].sort(),
    );
    expect(server.checkHost('kubernetes.default.svc')).toBe('kubernetes.default.svc');
    expect(server.checkIP('::1')).toBe('::1');
    expect(server.checkHost('example.com')).toBeUndefined();

    const admin = new X509Certificate(first.adminCert);
    expect(admin.subject.split('\n').sort()).toEqual(['CN=admin', 'O=system:masters']);
    expect(admin.keyUsage).toEqual([CLIENT_AUTH]);
    expect(admin.verify(ca.publicKey)).toBe(true);

    // Each key is PKCS#8, belongs to its certificate and is accepted by Node's TLS layer.
    for (const [certPem, keyPem] of [
      [first.caCert, first.caKey],
      [first.serverCert, first.serverKey],
      [first.adminCert, first.adminKey],
    ] as const) {
      expect(keyPem.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
      expect(new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem))).toBe(true);
      expect(() => createSecureContext({ cert: certPem, key: keyPem })).not.toThrow();
    }
  });

  it('writes the six PEM files, keys readable only by the owner', async () => {
    const p = first.paths;
    expect(p).toEqual({
      caCert: join(dataDir, 'ca.crt'),
      caKey: join(dataDir, 'ca.key'),
      serverCert: join(dataDir, 'apiserver.crt'),
      serverKey: join(dataDir, 'apiserver.key'),
      adminCert: join(dataDir, 'admin.crt'),
      adminKey: join(dataDir, 'admin.key'),
    });
    expect(await readFile(p.caCert, 'utf8')).toBe(first.caCert);
    expect(await readFile(p.serverKey, 'utf8')).toBe(first.serverKey);
    expect(await readFile(p.adminCert, 'utf8')).toBe(first.adminCert);
    for (const key of [p.caKey, p.serverKey, p.adminKey]) expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(statSync(p.caCert).mode & 0o777).toBe(0o644);
  });

  it('reuses the existing files on restart', async () => {
    const again = await ensureCertificates(dataDir);
    expect(again).toEqual(first);
  });

  it('reissues a missing leaf from the existing CA, leaving the others alone', async () => {
    unlinkSync(first.paths.adminKey);
    const again = await ensureCertificates(dataDir);
    expect(again.caCert).toBe(first.caCert);
    expect(again.serverCert).toBe(first.serverCert);
    expect(again.adminCert).not.toBe(first.adminCert);
    const admin = new X509Certificate(again.adminCert);
    expect(admin.verify(new X509Certificate(first.caCert).publicKey)).toBe(true);
    expect(admin.checkPrivateKey(createPrivateKey(again.adminKey))).toBe(true);
  });

  it('starts over when the CA is gone, since old leaves would not chain to a new one', async () => {
    unlinkSync(first.paths.caCert);
    const again = await ensureCertificates(dataDir);
    expect(again.caCert).not.toBe(first.caCert);
    expect(again.serverCert).not.toBe(first.serverCert);
    expect(new X509Certificate(again.serverCert).verify(new X509Certificate(again.caCert).publicKey)).toBe(true);
  });

  it('reissues leaves that the CA in the data dir did not sign (the CA files were replaced)', async () => {
    const before = await ensureCertificates(dataDir);
    const replacement = await createCertificateAuthority();
    writeFileSync(before.paths.caCert, replacement.cert);
    writeFileSync(before.paths.caKey, replacement.key);
    const after = await ensureCertificates(dataDir);
    expect(after.caCert).toBe(replacement.cert);
    const caKey = new X509Certificate(replacement.cert).publicKey;
    expect(new X509Certificate(after.serverCert).verify(caKey)).toBe(true);
    expect(new X509Certificate(after.adminCert).verify(caKey)).toBe(true);
    expect(after.serverCert).not.toBe(before.serverCert);
  });
});

describe('issueClientCertificate', () => {
  it('puts the common name and every organization into the subject, signed by the given CA', async () => {
    const ca = await ensureCertificates(tempDir());
    const { cert, key } = await issueClientCertificate(ca, { commonName: 'jane', organizations: ['dev', 'ops, with comma'] });
    const x = new X509Certificate(cert);
    expect(x.subject.split('\n')).toContain('CN=jane');
    expect(x.subject).toContain('O=dev');
    // Node escapes the comma when it prints the subject; the value is one O entry.
    expect(x.subject.split('\n')).toContain('O=ops\\, with comma');
    expect(x.keyUsage).toEqual([CLIENT_AUTH]);
    expect(x.verify(new X509Certificate(ca.caCert).publicKey)).toBe(true);
    expect(x.checkPrivateKey(createPrivateKey(key))).toBe(true);
    // Go rejects negative serial numbers: the top bit of the first byte must be clear.
    expect(parseInt(x.serialNumber.slice(0, 2), 16)).toBeLessThan(0x80);
  });
});
