/**
 * TLS material for the API server: a private CA, the serving certificate and the admin client
 * certificate, kept as PEM files in the data dir so a restart presents the same identity.
 * Keys are ECDSA P-256 in PKCS#8 PEM, which Node's tls and Go's crypto/tls (kubectl) both accept.
 */
import { X509Certificate as NodeX509Certificate, createPrivateKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCertificate, encodeName, keyIdentifier, subjectNameOf, toPem, type NameAttribute } from './x509-der.ts';

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

/** ensureCertificates for the server's start (kept as the start's entry point; creating is cheap now). */
export async function ensureCertificatesForServer(dataDir: string): Promise<ClusterCertificates> {
  return ensureCertificates(dataDir);
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
  const keys = generateKeyPair();
  const now = Date.now();
  const subject: NameAttribute[] = [{ type: 'CN', value: commonName }];
  const issuer = parent === undefined ? undefined : readAuthority(parent);
  const der = createCertificate({
    serial: randomSerial(),
    subject,
    issuerName: issuer?.name ?? encodeName(subject),
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(Math.min(now + CA_LIFETIME_MS, issuer?.notAfter ?? Infinity)),
    publicKey: keys.publicKey,
    isCA: true,
    keyUsage: { keyCertSign: true, cRLSign: true, digitalSignature: true },
    authorityKeyId: issuer?.keyId,
    signingKey: issuer?.key ?? keys.privateKey,
  });
  return { cert: toPem(der, 'CERTIFICATE'), key: privateKeyPem(keys.privateKey) };
}

/** Issues a serving certificate (serverAuth) for the default in-cluster and loopback names. Writes nothing. */
export async function issueServingCertificate(ca: CertificateAuthority, req: ServingCertificateRequest = {}): Promise<CertKeyPair> {
  return issueLeaf(ca, {
    subject: [{ type: 'CN', value: 'kube-apiserver' }],
    lifetimeMs: req.lifetimeMs ?? LEAF_LIFETIME_MS,
    usage: 'serverAuth',
    dnsNames: req.dnsNames ?? SERVING_DNS_NAMES,
    ips: req.ips ?? SERVING_IPS,
  });
}

/** Issues a client certificate (clientAuth): CN becomes the username, each O a group. Writes nothing. */
export async function issueClientCertificate(ca: CertificateAuthority, req: ClientCertificateRequest): Promise<CertKeyPair> {
  // Go orders O before CN when it prints a subject; the order carries no meaning for authentication.
  const subject: NameAttribute[] = [...(req.organizations ?? []).map((value) => ({ type: 'O' as const, value })), { type: 'CN', value: req.commonName }];
  return issueLeaf(ca, { subject, lifetimeMs: req.lifetimeMs ?? LEAF_LIFETIME_MS, usage: 'clientAuth', dnsNames: [], ips: [] });
}

interface LeafSpec {
  readonly subject: readonly NameAttribute[];
  readonly lifetimeMs: number;
  readonly usage: 'serverAuth' | 'clientAuth';
  readonly dnsNames: readonly string[];
  readonly ips: readonly string[];
}

async function issueLeaf(ca: CertificateAuthority, spec: LeafSpec): Promise<CertKeyPair> {
  const issuer = readAuthority(ca);
  const keys = generateKeyPair();
  const now = Date.now();
  const der = createCertificate({
    serial: randomSerial(),
    subject: spec.subject,
    issuerName: issuer.name,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(Math.min(now + spec.lifetimeMs, issuer.notAfter)),
    publicKey: keys.publicKey,
    isCA: false,
    // ECDSA keys sign; keyEncipherment only makes sense for RSA key exchange.
    keyUsage: { digitalSignature: true },
    extKeyUsage: spec.usage,
    dnsNames: spec.dnsNames,
    ips: spec.ips,
    authorityKeyId: issuer.keyId,
    signingKey: issuer.key,
  });
  return { cert: toPem(der, 'CERTIFICATE'), key: privateKeyPem(keys.privateKey) };
}

/** What signing with a CA needs from its PEM files. */
function readAuthority(ca: CertificateAuthority): { name: Buffer; notAfter: number; keyId: Buffer; key: KeyObject } {
  const cert = new NodeX509Certificate(ca.caCert);
  return { name: subjectNameOf(cert.raw), notAfter: Date.parse(cert.validTo), keyId: keyIdentifier(cert.publicKey), key: createPrivateKey(ca.caKey) };
}

/** ECDSA P-256 (about a millisecond; node:crypto, synchronous). */
function generateKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' });
}

function privateKeyPem(key: KeyObject): string {
  return String(key.export({ type: 'pkcs8', format: 'pem' }));
}

/** A random positive 128-bit serial; Go rejects negative serial numbers, so the top bit is clear. */
function randomSerial(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x01;
  return bytes;
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
