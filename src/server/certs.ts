/**
 * TLS material for the API server: a private CA, the serving certificate and the admin client
 * certificate, kept as PEM files in the data dir so a restart presents the same identity.
 * Keys are ECDSA P-256 in PKCS#8 PEM, which Node's tls and Go's crypto/tls (kubectl) both accept.
 */
import { X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
const crypto = webcrypto;

let x509Module: Promise<typeof X509> | undefined;

/**
 * Loads @peculiar/x509 once. Its dependency tsyringe refuses to load without the Reflect metadata
 * API (normally the `reflect-metadata` package, which is not installed), so a minimal one is
 * installed first; the import is dynamic so that the shim is in place before the module runs.
 */
function loadX509(): Promise<typeof X509> {
  x509Module ??= (async () => {
    installReflectMetadataShim();
    // A CommonJS package: Node offers its exports both as named exports and as `default`; in the
    // bundle that `npm start` runs (bin/build.js), only `default` holds them.
    const imported = (await import('@peculiar/x509')) as typeof X509 & { default?: typeof X509 };
    const mod = imported.default ?? imported;
    mod.cryptoProvider.set(crypto);
    return mod;
  })();
  return x509Module;
}

type MetadataTable = Map<string | symbol | undefined, Map<unknown, unknown>>;

function installReflectMetadataShim(): void {
  const reflect = Reflect as unknown as Record<string, unknown>;
  if (typeof reflect.getMetadata === 'function') return;
  const store = new WeakMap<object, MetadataTable>();
  const own = (target: object, prop?: string | symbol) => store.get(target)?.get(prop);
  const defineMetadata = (key: unknown, value: unknown, target: object, prop?: string | symbol) => {
    let table = store.get(target);
    if (!table) store.set(target, (table = new Map()));
    let entries = table.get(prop);
    if (!entries) table.set(prop, (entries = new Map()));
    entries.set(key, value);
  };
  const getOwnMetadata = (key: unknown, target: object, prop?: string | symbol) => own(target, prop)?.get(key);
  const getMetadata = (key: unknown, target: object, prop?: string | symbol): unknown => {
    for (let t: object | null = target; t; t = Object.getPrototypeOf(t) as object | null) {
      const entries = own(t, prop);
      if (entries?.has(key)) return entries.get(key);
    }
    return undefined;
  };
  reflect.defineMetadata = defineMetadata;
  reflect.getOwnMetadata = getOwnMetadata;
  reflect.getMetadata = getMetadata;
  reflect.hasMetadata = (key: unknown, target: object, prop?: string | symbol) => getMetadata(key, target, prop) !== undefined;
  reflect.metadata = (key: unknown, value: unknown) => (target: object, prop?: string | symbol) => defineMetadata(key, value, target, prop);
}

const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
const DAY_MS = 24 * 60 * 60 * 1000;
const CA_LIFETIME_MS = 10 * 365 * DAY_MS;
const LEAF_LIFETIME_MS = 365 * DAY_MS;
// Backdate so that a client whose clock runs a little behind still accepts a fresh certificate.
const BACKDATE_MS = 5 * 60 * 1000;
// Leaf certificates this close to expiry are reissued on start.
const RENEW_BEFORE_MS = 30 * DAY_MS;

export const CA_COMMON_NAME = 'kube-gateway-ca';
export const SERVING_DNS_NAMES: readonly string[] = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'];
export const SERVING_IPS: readonly string[] = ['127.0.0.1', '::1'];

/** A certificate and its private key, both PEM. */
export interface CertKeyPair {
  readonly cert: string;
  readonly key: string;
}

export interface CertificatePaths {
  readonly caCert: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
}

export interface ClusterCertificates {
  readonly caCert: string;
  readonly caKey: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly adminCert: string;
  readonly adminKey: string;
  readonly paths: CertificatePaths;
}

/** The signing authority: its certificate and private key, PEM. */
export interface CertificateAuthority {
  readonly caCert: string;
  readonly caKey: string;
}

export interface ClientCertificateRequest {
  readonly commonName: string;
  readonly organizations?: readonly string[];
  /** Lifetime in milliseconds; one year when absent. */
  readonly lifetimeMs?: number;
}

export interface ServingCertificateRequest {
  readonly dnsNames?: readonly string[];
  readonly ips?: readonly string[];
  readonly lifetimeMs?: number;
}

/** The file names used inside a data dir. */
export function certificatePaths(dataDir: string): CertificatePaths {
  return {
    caCert: join(dataDir, 'ca.crt'),
    caKey: join(dataDir, 'ca.key'),
    serverCert: join(dataDir, 'apiserver.crt'),
    serverKey: join(dataDir, 'apiserver.key'),
    adminCert: join(dataDir, 'admin.crt'),
    adminKey: join(dataDir, 'admin.key'),
  };
}

/**
 * ensureCertificates for the server's start. Creating certificates loads @peculiar/x509, about
 * 11 MB of heap that no ES module can give back; the compiled server (build/, bin/build.js) does
 * that in a worker thread whose heap goes away with it, when anything must be created. Reading
 * existing files needs only Node's own X509Certificate, in this thread.
 */
export async function ensureCertificatesForServer(dataDir: string): Promise<ClusterCertificates> {
  const compiled = import.meta.url.endsWith('.js');
  if (!compiled) return ensureCertificates(dataDir);
  const existing = await readCurrentCertificates(dataDir);
  if (existing !== undefined) return existing;
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(new URL('./certs-worker.js', import.meta.url), { workerData: { dataDir } });
  const reply = await new Promise<{ certs?: ClusterCertificates; error?: { message: string; code?: string } }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`certificate worker exited with code ${code}`)));
  });
  await worker.terminate();
  if (reply.error !== undefined) throw Object.assign(new Error(reply.error.message), reply.error.code === undefined ? {} : { code: reply.error.code });
  return reply.certs!;
}

/** The data dir's certificates when all exist and none needs reissuing; otherwise undefined. */
async function readCurrentCertificates(dataDir: string): Promise<ClusterCertificates | undefined> {
  const paths = certificatePaths(dataDir);
  const ca = await readPair(paths.caCert, paths.caKey);
  const server = await readPair(paths.serverCert, paths.serverKey);
  const admin = await readPair(paths.adminCert, paths.adminKey);
  if (ca === undefined || server === undefined || admin === undefined) return undefined;
  if (needsReissue(server.cert, ca.cert) || needsReissue(admin.cert, ca.cert)) return undefined;
  return { caCert: ca.cert, caKey: ca.key, serverCert: server.cert, serverKey: server.key, adminCert: admin.cert, adminKey: admin.key, paths };
}

/**
 * Loads the CA, serving and admin certificates from `dataDir`, creating whatever is missing.
 * Existing files are reused; a missing CA regenerates everything (the old leaves would not chain
 * to it); a leaf that is missing, nearly expired or not signed by the CA is reissued from the CA.
 */
export async function ensureCertificates(dataDir: string): Promise<ClusterCertificates> {
  await mkdir(dataDir, { recursive: true });
  const paths = certificatePaths(dataDir);

  let ca = await readPair(paths.caCert, paths.caKey);
  const freshCa = ca === undefined;
  if (ca === undefined) {
    ca = await createCertificateAuthority();
    await writePair(paths.caCert, paths.caKey, ca);
  }
  const authority: CertificateAuthority = { caCert: ca.cert, caKey: ca.key };

  let server = freshCa ? undefined : await readPair(paths.serverCert, paths.serverKey);
  if (server === undefined || needsReissue(server.cert, ca.cert)) {
    server = await issueServingCertificate(authority);
    await writePair(paths.serverCert, paths.serverKey, server);
  }

  let admin = freshCa ? undefined : await readPair(paths.adminCert, paths.adminKey);
  if (admin === undefined || needsReissue(admin.cert, ca.cert)) {
    admin = await issueClientCertificate(authority, { commonName: 'admin', organizations: ['system:masters'] });
    await writePair(paths.adminCert, paths.adminKey, admin);
  }

  return {
    caCert: ca.cert,
    caKey: ca.key,
    serverCert: server.cert,
    serverKey: server.key,
    adminCert: admin.cert,
    adminKey: admin.key,
    paths,
  };
}

/**
 * Creates a new CA (ten years): self-signed, or an intermediate signed by `parent` (its lifetime
 * then ends no later than the parent's). Pure: writes nothing.
 */
export async function createCertificateAuthority(commonName = CA_COMMON_NAME, parent?: CertificateAuthority): Promise<CertKeyPair> {
  const x509 = await loadX509();
  const keys = await generateKeyPair();
  const now = Date.now();
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.KeyUsagesExtension(
      x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
  ];
  const common = {
    serialNumber: randomSerial(),
    notBefore: new Date(now - BACKDATE_MS),
    signingAlgorithm: SIGNING_ALGORITHM,
  };
  let cert: X509.X509Certificate;
  if (parent === undefined) {
    cert = await x509.X509CertificateGenerator.createSelfSigned({
      ...common,
      name: [{ CN: [commonName] }],
      notAfter: new Date(now + CA_LIFETIME_MS),
      keys,
      extensions,
    });
  } else {
    const parentCert = new x509.X509Certificate(parent.caCert);
    extensions.push(await x509.AuthorityKeyIdentifierExtension.create(parentCert.publicKey));
    cert = await x509.X509CertificateGenerator.create({
      ...common,
      subject: [{ CN: [commonName] }],
      issuer: parentCert.subject,
      notAfter: new Date(Math.min(now + CA_LIFETIME_MS, parentCert.notAfter.getTime())),
      signingKey: await importPrivateKeyPem(x509, parent.caKey),
      publicKey: keys.publicKey,
      extensions,
    });
  }
  return { cert: cert.toString('pem') + '\n', key: await exportPrivateKeyPem(x509, keys.privateKey) };
}

/** Issues a serving certificate (serverAuth) for the default in-cluster and loopback names. Writes nothing. */
export async function issueServingCertificate(ca: CertificateAuthority, req: ServingCertificateRequest = {}): Promise<CertKeyPair> {
  const dnsNames = req.dnsNames ?? SERVING_DNS_NAMES;
  const ips = req.ips ?? SERVING_IPS;
  const x509 = await loadX509();
  return issueLeaf(ca, {
    subject: [{ CN: ['kube-apiserver'] }],
    lifetimeMs: req.lifetimeMs ?? LEAF_LIFETIME_MS,
    usage: x509.ExtendedKeyUsage.serverAuth,
    altNames: [...dnsNames.map((value) => ({ type: 'dns' as const, value })), ...ips.map((value) => ({ type: 'ip' as const, value }))],
  });
}

/** Issues a client certificate (clientAuth): CN becomes the username, each O a group. Writes nothing. */
export async function issueClientCertificate(ca: CertificateAuthority, req: ClientCertificateRequest): Promise<CertKeyPair> {
  const x509 = await loadX509();
  const subject: X509.JsonName = [];
  // Go orders O before CN when it prints a subject; the order carries no meaning for authentication.
  for (const org of req.organizations ?? []) subject.push({ O: [org] });
  subject.push({ CN: [req.commonName] });
  return issueLeaf(ca, {
    subject,
    lifetimeMs: req.lifetimeMs ?? LEAF_LIFETIME_MS,
    usage: x509.ExtendedKeyUsage.clientAuth,
    altNames: [],
  });
}

interface LeafSpec {
  readonly subject: X509.JsonName;
  readonly lifetimeMs: number;
  readonly usage: X509.ExtendedKeyUsage;
  readonly altNames: readonly { type: 'dns' | 'ip'; value: string }[];
}

async function issueLeaf(ca: CertificateAuthority, spec: LeafSpec): Promise<CertKeyPair> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.caCert);
  const caKey = await importPrivateKeyPem(x509, ca.caKey);
  const keys = await generateKeyPair();
  const now = Date.now();
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    // ECDSA keys sign; keyEncipherment only makes sense for RSA key exchange.
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([spec.usage], false),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
  ];
  if (spec.altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension([...spec.altNames], false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: spec.subject,
    issuer: caCert.subject,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(Math.min(now + spec.lifetimeMs, caCert.notAfter.getTime())),
    signingAlgorithm: SIGNING_ALGORITHM,
    signingKey: caKey,
    publicKey: keys.publicKey,
    extensions,
  });
  return { cert: cert.toString('pem') + '\n', key: await exportPrivateKeyPem(x509, keys.privateKey) };
}

async function generateKeyPair(): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function exportPrivateKeyPem(x509: typeof X509, key: CryptoKey): Promise<string> {
  const der = await crypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY') + '\n';
}

async function importPrivateKeyPem(x509: typeof X509, pem: string): Promise<CryptoKey> {
  const [der] = x509.PemConverter.decode(pem);
  if (der === undefined) throw new Error('CA key file holds no PEM block');
  return crypto.subtle.importKey('pkcs8', der, KEY_ALGORITHM, false, ['sign']);
}

/** A random positive 128-bit serial; Go rejects negative serial numbers, so the top bit is clear. */
function randomSerial(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}

/** True when a leaf is unreadable, close to expiry, or no longer signed by the CA (say, ca.crt was replaced). */
function needsReissue(certPem: string, caPem: string): boolean {
  try {
    const cert = new NodeX509Certificate(certPem);
    const ca = new NodeX509Certificate(caPem);
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return true;
    return Date.parse(cert.validTo) - Date.now() < RENEW_BEFORE_MS;
  } catch {
    return true;
  }
}

async function readPair(certPath: string, keyPath: string): Promise<CertKeyPair | undefined> {
  if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
  return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8') };
}

async function writePair(certPath: string, keyPath: string, pair: CertKeyPair): Promise<void> {
  await writeAtomically(keyPath, pair.key, 0o600);
  await writeAtomically(certPath, pair.cert, 0o644);
}

/** Writes through a temporary file and a rename, so a crash never leaves half a PEM behind. */
async function writeAtomically(path: string, text: string, mode: number): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, text, { mode });
  await chmod(tmp, mode);
  await rename(tmp, path);
}
