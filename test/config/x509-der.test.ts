/**
 * The hand-written X.509 encoder (src/server/x509-der.ts), read back by Node's (OpenSSL's) parser:
 * long names (multi-byte DER lengths), dates past 2049 (GeneralizedTime), IPv6 addresses, and a
 * chain root -> intermediate -> leaf that verifies.
 */
import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../../src/server/certs.ts';
import { createCertificate, encodeName, toPem } from '../../src/server/x509-der.ts';

describe('x509 DER encoder', () => {
  it('writes names over 127 bytes, GeneralizedTime after 2049 and IPv6 SANs that OpenSSL reads back', () => {
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const cn = 'x'.repeat(300);
    const der = createCertificate({
      serial: Buffer.from('00ff01', 'hex'),
      subject: [{ type: 'O', value: 'grüppe' }, { type: 'CN', value: cn }],
      issuerName: encodeName([{ type: 'CN', value: cn }]),
      notBefore: new Date('2049-12-31T23:59:59Z'),
      notAfter: new Date('2099-01-02T03:04:05Z'),
      publicKey: keys.publicKey,
      isCA: false,
      keyUsage: { digitalSignature: true },
      extKeyUsage: 'serverAuth',
      dnsNames: ['example.test'],
      ips: ['::1', '2001:db8::7', '10.0.0.1'],
      signingKey: keys.privateKey,
    });
    const cert = new X509Certificate(toPem(der, 'CERTIFICATE'));
    expect(cert.subject).toContain(`CN=${cn}`);
    expect(cert.subject).toContain('O=grüppe');
    expect(new Date(cert.validFrom).toISOString()).toBe('2049-12-31T23:59:59.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2099-01-02T03:04:05.000Z');
    expect(cert.subjectAltName).toBe('DNS:example.test, IP Address:0:0:0:0:0:0:0:1, IP Address:2001:DB8:0:0:0:0:0:7, IP Address:10.0.0.1');
    expect(cert.serialNumber.toUpperCase()).toBe('FF01');
    expect(cert.verify(keys.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
  });

  it('chains a root, an intermediate and leaves that verify and carry their usages', async () => {
    const root = await createCertificateAuthority('root');
    const intermediate = await createCertificateAuthority('intermediate', { caCert: root.cert, caKey: root.key });
    const leaf = await issueServingCertificate({ caCert: intermediate.cert, caKey: intermediate.key }, { dnsNames: ['a.test'], ips: ['127.0.0.1'] });
    const client = await issueClientCertificate({ caCert: intermediate.cert, caKey: intermediate.key }, { commonName: 'jane', organizations: ['dev', 'ops'] });
    const [r, i, l, c] = [root, intermediate, leaf, client].map((p) => new X509Certificate(p.cert));
    expect(r!.ca && i!.ca).toBe(true);
    expect(i!.checkIssued(r!) && i!.verify(r!.publicKey)).toBe(true);
    expect(l!.checkIssued(i!) && l!.verify(i!.publicKey)).toBe(true);
    expect(c!.checkIssued(i!) && c!.verify(i!.publicKey)).toBe(true);
    expect(l!.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(c!.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(c!.subject).toBe('O=dev\nO=ops\nCN=jane');
    expect(Date.parse(i!.validTo)).toBeLessThanOrEqual(Date.parse(r!.validTo));
  });
});
