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

/** A verified chain's answer and the time window in which every certificate of that chain is valid. */
interface Verified {
  readonly outcome: AuthnOutcome;
  readonly validFrom: number;
  readonly validTo: number;
}

/**
 * The client-certificate step. A connection's chain is verified once: the answer is kept on the
 * peer certificate object (the front door reads it once per TLS connection, so HTTP/1.1
 * keep-alive requests and HTTP/2 streams present the same object), and later requests only check
 * the clock against the chain's validity window, as kube verifies every request at the current
 * time: a certificate that expires mid-connection is refused from then on. The answers belong to
 * this authenticator, built over one CA bundle; a reloaded bundle means a new authenticator and
 * so new answers. Chains seen on other connections are cached briefly by their bytes.
 */
export function createX509Authenticator(opts: X509AuthenticatorOptions): RequestAuthenticator {
  const roots = parseCertificateBundle(opts.clientCa);
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { readonly verified: Verified; readonly until: number }>();
  const byConnection = new WeakMap<PeerCertificateInfo, Verified>();

  return {
    name: 'x509',
    authenticate(req) {
      const peer = req.peerCertificate;
      if (!peer || peer.subject === undefined || roots.length === 0) return { kind: 'no-credentials' };
      if (peer.raw === undefined) {
        // Nothing to verify ourselves: rely on the TLS layer, which was given the client CAs.
        return req.peerAuthorized ? userOf(peer.subject, undefined) : { kind: 'rejected', reason: 'client certificate was not verified' };
      }
      const t = now();
      const known = byConnection.get(peer);
      if (known && withinWindow(known, t)) return known.outcome;

      const chain = presentedChain(peer);
      const key = chainKey(chain);
      const hit = cache.get(key);
      let verified: Verified;
      if (hit && hit.until > t && withinWindow(hit.verified, t)) verified = hit.verified;
      else {
        verified = verifyAndConvert(peer, chain, roots, t);
        if (cache.size >= CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value!);
        cache.set(key, { verified, until: t + CACHE_TTL_MS });
      }
      byConnection.set(peer, verified);
      return verified.outcome;
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

function withinWindow(v: Verified, t: number): boolean {
  return t >= v.validFrom && t <= v.validTo;
}

/**
 * Verifies the chain at time `t`. A success holds while every certificate of the verified path is
 * valid. A rejection (another authority's certificate: the usual case when the front-proxy step
 * looks at a user's certificate) holds until the next instant at which any presented or root
 * certificate starts or stops being valid: until then verification sees the same certificates and
 * gives the same answer.
 */
function verifyAndConvert(peer: PeerCertificateInfo, chain: readonly Uint8Array[], roots: readonly X509Certificate[], t: number): Verified {
  let certs: X509Certificate[];
  try {
    certs = chain.map((der) => new X509Certificate(Buffer.from(der)));
  } catch (err) {
    // The bytes never change: neither does this answer.
    return { outcome: { kind: 'rejected', reason: `parsing client certificate failed: ${(err as Error).message}` }, validFrom: -Infinity, validTo: Infinity };
  }
  const leaf = certs[0]!;
  const verified = verifyChain(leaf, certs.slice(1), roots, t);
  if (typeof verified === 'string') {
    const serial = BigInt(`0x${leaf.serialNumber}`).toString();
    return { outcome: { kind: 'rejected', reason: `verifying certificate SN=${serial} failed: ${verified}` }, ...unchangedAround(t, [...certs, ...roots]) };
  }
  const fingerprint = createHash('sha256').update(leaf.raw).digest('hex');
  return {
    outcome: userOf(peer.subject!, `X509SHA256=${fingerprint}`),
    validFrom: Math.max(...verified.map((c) => Date.parse(c.validFrom))),
    validTo: Math.min(...verified.map((c) => Date.parse(c.validTo))),
  };
}

/** The span around `t` in which none of `certs` starts or stops being valid (the clock only moves on, but tests move it back). */
function unchangedAround(t: number, certs: readonly X509Certificate[]): { validFrom: number; validTo: number } {
  let validFrom = -Infinity;
  let validTo = Infinity;
  for (const c of certs) {
    // Valid on [from, to]: the answer may change at `from` and just after `to`.
    for (const edge of [Date.parse(c.validFrom), Date.parse(c.validTo) + 1]) {
      if (edge > t) validTo = Math.min(validTo, edge - 1);
      else validFrom = Math.max(validFrom, edge);
    }
  }
  return { validFrom, validTo };
}

/**
 * The verified path, leaf to root, when the leaf chains to a root through the presented
 * intermediates; otherwise why not, in Go's words.
 */
function verifyChain(leaf: X509Certificate, intermediates: readonly X509Certificate[], roots: readonly X509Certificate[], t: number): X509Certificate[] | string {
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
  const path = [leaf];
  const unused = [...intermediates];
  for (let depth = 0; depth <= MAX_CHAIN_LENGTH; depth++) {
    const root = roots.find((r) => signedBy(current, r) && timeProblem(r) === undefined);
    if (root) return [...path, root];
    const nextIndex = unused.findIndex((i) => i.ca && signedBy(current, i) && timeProblem(i) === undefined && usageOk(i));
    if (nextIndex === -1) break;
    current = unused.splice(nextIndex, 1)[0]!;
    path.push(current);
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
