/**
 * The service-account keys of a server: the signing key from --service-account-signing-key-file
 * or, when absent, `sa.key` in the data dir (generated on first start, like the CA, so tokens
 * outlive restarts); the verification keys from every --service-account-key-file plus the
 * signing key's public half.
 *
 * The generated key is ECDSA P-256 (tokens signed ES256, which kube-apiserver accepts as it
 * accepts RS256): an RSA-2048 key takes 50 to 350 ms to generate here, most of a fresh start,
 * and a P-256 key under a millisecond. A data dir from an earlier version keeps its RSA key;
 * --service-account-signing-key-file takes either kind.
 */
import { generateKeyPairSync, createPublicKey, type KeyObject } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parsePrivateKeyPem, parsePublicKeysPem } from './jwt.ts';

export interface ServiceAccountKeys {
  readonly signingKey: KeyObject;
  readonly verificationKeys: readonly KeyObject[];
}

/** A key file that cannot be used; the message names the file. */
export class ServiceAccountKeyError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ServiceAccountKeyError';
  }
}

export const GENERATED_SIGNING_KEY_FILE = 'sa.key';

export async function loadServiceAccountKeys(opts: {
  readonly dataDir: string;
  readonly signingKeyFile?: string;
  readonly keyFiles?: readonly string[];
}): Promise<ServiceAccountKeys> {
  const signingKey = opts.signingKeyFile ? await readSigningKey(opts.signingKeyFile) : await generatedSigningKey(opts.dataDir);
  const verificationKeys = [createPublicKey(signingKey)];
  for (const file of opts.keyFiles ?? []) {
    const pem = await readText(file, 'service-account-key-file');
    try {
      verificationKeys.push(...parsePublicKeysPem(pem, file));
    } catch (err) {
      throw new ServiceAccountKeyError(`failed to parse service-account issuer public key file ${file}: ${(err as Error).message}`, { cause: err });
    }
  }
  return { signingKey, verificationKeys };
}

async function readSigningKey(file: string): Promise<KeyObject> {
  const pem = await readText(file, 'service-account-signing-key-file');
  try {
    return parsePrivateKeyPem(pem, file);
  } catch (err) {
    throw new ServiceAccountKeyError(`failed to parse service-account-signing-key-file ${file}: ${(err as Error).message}`, { cause: err });
  }
}

async function generatedSigningKey(dataDir: string): Promise<KeyObject> {
  const path = join(dataDir, GENERATED_SIGNING_KEY_FILE);
  let pem: string | undefined;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (pem !== undefined) return parsePrivateKeyPem(pem, path);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writeFile(path, privateKey.export({ type: 'sec1', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  return privateKey;
}

async function readText(file: string, flag: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new ServiceAccountKeyError(`cannot read --${flag} ${file}: ${(err as Error).message}`, { cause: err });
  }
}
