import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderKubeconfig, writeAdminKubeconfig } from '../../src/server/kubeconfig.ts';

const dir = mkdtempSync(join(tmpdir(), 'kg-kubeconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ca = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';
const cert = '-----BEGIN CERTIFICATE-----\nQURNSU4=\n-----END CERTIFICATE-----\n';
const key = '-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----\n';
const unbase64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

describe('renderKubeconfig', () => {
  it('embeds CA and client credentials as base64 and selects its one context', () => {
    const doc = parse(renderKubeconfig({ server: 'https://127.0.0.1:6443', caPem: ca, certPem: cert, keyPem: key }));
    expect(doc.apiVersion).toBe('v1');
    expect(doc.kind).toBe('Config');
    expect(doc.clusters).toHaveLength(1);
    expect(doc.clusters[0].name).toBe('kube-gateway');
    expect(doc.clusters[0].cluster.server).toBe('https://127.0.0.1:6443');
    expect(unbase64(doc.clusters[0].cluster['certificate-authority-data'])).toBe(ca);
    expect(doc.users).toEqual([
      { name: 'admin', user: { 'client-certificate-data': expect.any(String), 'client-key-data': expect.any(String) } },
    ]);
    expect(unbase64(doc.users[0].user['client-certificate-data'])).toBe(cert);
    expect(unbase64(doc.users[0].user['client-key-data'])).toBe(key);
    expect(doc.contexts).toEqual([{ name: 'admin@kube-gateway', context: { cluster: 'kube-gateway', user: 'admin' } }]);
    expect(doc['current-context']).toBe('admin@kube-gateway');
  });

  it('supports a bearer token, custom names and a namespace', () => {
    const doc = parse(
      renderKubeconfig({ server: 'https://[::1]:1', caPem: ca, token: 'abc', clusterName: 'c', userName: 'u', namespace: 'ns' }),
    );
    expect(doc.users).toEqual([{ name: 'u', user: { token: 'abc' } }]);
    expect(doc.contexts).toEqual([{ name: 'u@c', context: { cluster: 'c', user: 'u', namespace: 'ns' } }]);
    expect(doc.clusters[0].cluster.server).toBe('https://[::1]:1');
  });

  it('refuses a certificate without its key', () => {
    expect(() => renderKubeconfig({ server: 'https://x', caPem: ca, certPem: cert })).toThrow(/together/);
  });
});

describe('writeAdminKubeconfig', () => {
  it('writes the rendered file with mode 0600, also over an existing world-readable file', async () => {
    const path = join(dir, 'sub', 'admin.kubeconfig');
    const opts = { server: 'https://127.0.0.1:6443', caPem: ca, certPem: cert, keyPem: key };
    await writeAdminKubeconfig(path, opts);
    expect(readFileSync(path, 'utf8')).toBe(renderKubeconfig(opts));
    expect(statSync(path).mode & 0o777).toBe(0o600);

    writeFileSync(path, 'old', { mode: 0o644 });
    await writeAdminKubeconfig(path, { ...opts, server: 'https://127.0.0.1:7443' });
    expect(parse(readFileSync(path, 'utf8')).clusters[0].cluster.server).toBe('https://127.0.0.1:7443');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
