import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyIdOf } from '../../src/authn/jwt.ts';
import { loadServiceAccountKeys, ServiceAccountKeyError } from '../../src/authn/service-account-keys.ts';
import { startApiServer } from '../../src/server/api-server.ts';
import { StartupError } from '../../src/server/startup-error.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'kg-sakeys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('service-account keys', () => {
  it('generates sa.key once and reuses it on the next start', async () => {
    const data = mkdtempSync(join(dir, 'data-'));
    const first = await loadServiceAccountKeys({ dataDir: data });
    const pem = readFileSync(join(data, 'sa.key'), 'utf8');
    expect(pem).toContain('-----BEGIN EC PRIVATE KEY-----');
    expect(first.signingKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const second = await loadServiceAccountKeys({ dataDir: data });
    expect(keyIdOf(second.signingKey)).toBe(keyIdOf(first.signingKey));
  });

  it('keeps signing with an RSA sa.key that an earlier version generated', async () => {
    const data = mkdtempSync(join(dir, 'data-'));
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    writeFileSync(join(data, 'sa.key'), rsa.export({ type: 'pkcs1', format: 'pem' }));
    const keys = await loadServiceAccountKeys({ dataDir: data });
    expect(keys.signingKey.asymmetricKeyType).toBe('rsa');
    expect(keyIdOf(keys.signingKey)).toBe(keyIdOf(rsa));
  });

  it('uses the given signing key and adds every key file to the verification keys', async () => {
    const signing = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const extra = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    const signingFile = join(dir, 'signing.key');
    const extraFile = join(dir, 'extra.pub');
    writeFileSync(signingFile, signing.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(extraFile, extra.export({ type: 'spki', format: 'pem' }));
    const keys = await loadServiceAccountKeys({ dataDir: dir, signingKeyFile: signingFile, keyFiles: [extraFile] });
    expect(keys.verificationKeys.map((k) => keyIdOf(k))).toEqual([keyIdOf(signing), keyIdOf(extra)]);
  });

  it('refuses unusable key files with the file named, and the server does not start', async () => {
    const bad = join(dir, 'bad.pub');
    writeFileSync(bad, 'not a key');
    await expect(loadServiceAccountKeys({ dataDir: dir, keyFiles: [bad] })).rejects.toThrow(ServiceAccountKeyError);
    await expect(loadServiceAccountKeys({ dataDir: dir, keyFiles: [bad] })).rejects.toThrow(`failed to parse service-account issuer public key file ${bad}`);
    await expect(loadServiceAccountKeys({ dataDir: dir, signingKeyFile: join(dir, 'missing.key') })).rejects.toThrow('cannot read --service-account-signing-key-file');
    const start = startApiServer({
      config: {
        securePort: 0,
        bindAddress: '127.0.0.1',
        etcdServers: [],
        shutdownDelayMs: 0,
        anonymousAuth: true,
        dataDir: join(dir, 'server'),
        storageBackend: 'memory',
        historyMs: 60_000,
        serviceAccountKeyFiles: [bad],
      },
      store: new MemoryStore({ historyMs: false }),
    });
    await expect(start).rejects.toThrow(StartupError);
    await expect(start).rejects.toThrow(bad);
  });
});
