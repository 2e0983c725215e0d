/**
 * Client certificates: a chain that verifies against one of the client CAs authenticates as its
 * Common Name, with each Organization entry as a group. As in kube-apiserver the chain is
 * verified here, not trusted from the TLS layer, so the serving TLS options may use any CA
 * bundle; only when the DER is unavailable does the TLS layer's `authorized` flag stand in.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { CREDENTIAL_ID_KEY, type AuthnOutcome, type AuthRequest, type PeerCertificateInfo, type RequestAuthenticator } from './types.ts';

const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE_OID = '2.5.29.37.0';
const MAX_CHAIN_LENGTH = 10;
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ENTRIES = 1024;

export interface X509AuthenticatorOptions {
  /** PEM bundles; each may hold several certificates. No certificates at all disables the step. */
  readonly clientCa: readonly string[];
  /** Clock for validity checks; tests move it. */
  readonly now?: () => number;
}

/** Splits PEM bundles into parsed certificates; throws when a block is not a certificate. */
export function parseCertificateBundle(bundles: readonly string[]): X509Certificate[] {
  const blocks = bundles.flatMap((b) => b.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []);
  return blocks.map((pem) => new X509Certificate(pem));
}

/** The peer certificate fields the gate needs, read from a TLS socket (which may be a plain socket). */
export function peerOfSocket(socket: unknown): Pick<AuthRequest, 'peerCertificate' | 'peerAuthorized'> {
  const tls = socket as Partial<TLSSocket> | undefined;
  if (typeof tls?.getPeerCertificate !== 'function') return { peerCertificate: null, peerAuthorized: false };
  const cert = tls.getPeerCertificate(true) as PeerCertificateInfo;
  return { peerCertificate: cert, peerAuthorized: tls.authorized === true };
}

/** The client-certificate step. Verification results are cached briefly per presented chain. */
export function createX509Authenticator(opts: X509AuthenticatorOptions): RequestAuthenticator {
  const roots = parseCertificateBundle(opts.clientCa);
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { readonly outcome: AuthnOutcome; readonly until: number }>();

  return {
    name: 'x509',
    authenticate(req) {
      const peer = req.peerCertificate;
      if (!peer || peer.subject === undefined || roots.length === 0) return { kind: 'no-credentials' };
      if (peer.raw === undefined) {
        // Nothing to verify ourselves: rely on the TLS layer, which was given the client CAs.
        return req.peerAuthorized ? userOf(peer.subject, undefined) : { kind: 'rejected', reason: 'client certificate was not verified' };
      }
      const chain = presentedChain(peer);
      const key = chainKey(chain);
      const t = now();
      const hit = cache.get(key);
      if (hit && hit.until > t) return hit.outcome;

      const { outcome, validUntil } = verifyAndConvert(peer, chain, roots, t);
      if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(key, { outcome, until: Math.min(t + CACHE_TTL_MS, validUntil) });
      return outcome;
    },
  };
}

/** The DER blocks of the presented chain, leaf first, stopping at a self-signed certificate. */
function presentedChain(peer: PeerCertificateInfo): Uint8Array[] {
  const chain: Uint8Array[] = [];
  for (let c: PeerCertificateInfo | undefined = peer; c?.raw && chain.length < MAX_CHAIN_LENGTH; c = c.issuerCertificate) {
    if (chain.length > 0 && Buffer.from(c.raw).equals(Buffer.from(chain[chain.length - 1]!))) break;
    chain.push(c.raw);
  }
  return chain;
}

function chainKey(chain: readonly Uint8Array[]): string {
  const h = createHash('sha256');
  for (const der of chain) h.update(der).update('|');
  return h.digest('hex');
}

function verifyAndConvert(
  peer: PeerCertificateInfo,
  chain: readonly Uint8Array[],
  roots: readonly X509Certificate[],
  t: number,
): { outcome: AuthnOutcome; validUntil: number } {
  let certs: X509Certificate[];
  try {
    certs = chain.map((der) => new X509Certificate(Buffer.from(der)));
  } catch (err) {
    return { outcome: { kind: 'rejected', reason: `parsing client certificate failed: ${(err as Error).message}` }, validUntil: t };
  }
  const leaf = certs[0]!;
  const problem = verifyChain(leaf, certs.slice(1), roots, t);
  if (problem !== undefined) {
    const serial = BigInt(`0x${leaf.serialNumber}`).toString();
    return { outcome: { kind: 'rejected', reason: `verifying certificate SN=${serial} failed: ${problem}` }, validUntil: t };
  }
  const fingerprint = createHash('sha256').update(leaf.raw).digest('hex');
  return { outcome: userOf(peer.subject!, `X509SHA256=${fingerprint}`), validUntil: Date.parse(leaf.validTo) };
}

/** Undefined when the leaf chains to a root through the presented intermediates; otherwise why not, in Go's words. */
function verifyChain(leaf: X509Certificate, intermediates: readonly X509Certificate[], roots: readonly X509Certificate[], t: number): string | undefined {
  const timeProblem = (c: X509Certificate) =>
    t < Date.parse(c.validFrom) || t > Date.parse(c.validTo)
      ? `x509: certificate has expired or is not yet valid: current time ${new Date(t).toISOString()} is outside ${c.validFrom} - ${c.validTo}`
      : undefined;
  const usageOk = (c: X509Certificate) => {
    const usages = c.keyUsage as string[] | undefined;
    return usages === undefined || usages.length === 0 || usages.includes(CLIENT_AUTH_OID) || usages.includes(ANY_EXTENDED_KEY_USAGE_OID);
  };
  const signedBy = (child: X509Certificate, parent: X509Certificate) => child.checkIssued(parent) && child.verify(parent.publicKey);

  const leafTime = timeProblem(leaf);
  if (leafTime) return leafTime;
  if (!usageOk(leaf)) return 'x509: certificate specifies an incompatible key usage';

  let current = leaf;
  const unused = [...intermediates];
  for (let depth = 0; depth <= MAX_CHAIN_LENGTH; depth++) {
    const root = roots.find((r) => signedBy(current, r) && timeProblem(r) === undefined);
    if (root) return undefined;
    const nextIndex = unused.findIndex((i) => i.ca && signedBy(current, i) && timeProblem(i) === undefined && usageOk(i));
    if (nextIndex === -1) break;
    current = unused.splice(nextIndex, 1)[0]!;
  }
  return 'x509: certificate signed by unknown authority';
}

function userOf(subject: NonNullable<PeerCertificateInfo['subject']>, credentialId: string | undefined): AuthnOutcome {
  const cns = asList(subject.CN);
  // Go keeps the last Common Name when a subject has several.
  const username = cns[cns.length - 1] ?? '';
  if (username === '') return { kind: 'no-credentials' };
  return {
    kind: 'authenticated',
    user: {
      username,
      groups: asList(subject.O),
      extra: credentialId ? { [CREDENTIAL_ID_KEY]: [credentialId] } : {},
    },
  };
}

function asList(v: string | readonly string[] | undefined): string[] {
  return v === undefined ? [] : typeof v === 'string' ? [v] : [...v];
}
