/**
 * X.509 v3 certificates written in DER with node:crypto's keys and signatures: just what the
 * server's own PKI needs (a CA, serving and client leaves, ECDSA P-256 with SHA-256), about a
 * hundred lines in place of a general X.509 library whose load alone cost a tenth of a second and
 * 11 MB of heap at every first start. RFC 5280 for the structures; Go's crypto/x509 (kubectl,
 * client-go) is the strictest reader, so times, names and extensions are encoded as Go encodes
 * its own certificates.
 */
import { createHash, sign, type KeyObject } from 'node:crypto';
import { isIPv4 } from 'node:net';

// ---- DER primitives ----

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.of(n);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One TLV: tag byte, DER length, contents. */
function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.of(tag), lengthBytes(body.length), body]);
}

const sequence = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
const set = (...items: Buffer[]): Buffer => tlv(0x31, ...items);
const octetString = (b: Buffer): Buffer => tlv(0x04, b);
const bitString = (b: Buffer): Buffer => tlv(0x03, Buffer.of(0), b);
const utf8String = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
const booleanTrue = (): Buffer => tlv(0x01, Buffer.of(0xff));
/** Context-specific tag `n`, constructed (explicit) or primitive (implicit). */
const explicit = (n: number, ...items: Buffer[]): Buffer => tlv(0xa0 | n, ...items);
const implicit = (n: number, b: Buffer): Buffer => tlv(0x80 | n, b);

/** A non-negative INTEGER from big-endian magnitude bytes (a leading zero added when the top bit is set). */
function unsignedInteger(magnitude: Buffer): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const trimmed = magnitude.subarray(i);
  return tlv(0x02, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.of(0), trimmed]) : trimmed);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [parts[0]! * 40 + parts[1]!];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5), to the second, in UTC. */
function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '') + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

// ---- X.509 structures ----

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

/** One attribute of a distinguished name, in the order written (Go prints O before CN). */
export interface NameAttribute {
  readonly type: 'CN' | 'O';
  readonly value: string;
}

/** A Name as a sequence of single-attribute RDNs, UTF8String values (as Go writes non-printable-safe names). */
export function encodeName(attrs: readonly NameAttribute[]): Buffer {
  return sequence(...attrs.map((a) => set(sequence(oid(a.type === 'CN' ? OID.commonName : OID.organization), utf8String(a.value)))));
}

/** The KeyUsage bits we use (RFC 5280 4.2.1.3): digitalSignature (0), keyCertSign (5), cRLSign (6). */
export interface KeyUsages {
  readonly digitalSignature?: boolean;
  readonly keyCertSign?: boolean;
  readonly cRLSign?: boolean;
}

function keyUsageBits(u: KeyUsages): Buffer {
  let byte = 0;
  if (u.digitalSignature) byte |= 0x80;
  if (u.keyCertSign) byte |= 0x04;
  if (u.cRLSign) byte |= 0x02;
  // DER: trailing zero bits are not counted (the first content byte says how many are unused).
  let unused = 0;
  while (unused < 8 && !(byte & (1 << unused))) unused++;
  return tlv(0x03, Buffer.of(unused === 8 ? 0 : unused), unused === 8 ? Buffer.alloc(0) : Buffer.of(byte));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(id), booleanTrue(), octetString(value)) : sequence(oid(id), octetString(value));
}

/** The key identifier Go computes: SHA-1 of the subjectPublicKey bit string's contents. */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  // SubjectPublicKeyInfo = SEQUENCE { AlgorithmIdentifier, BIT STRING }: for a P-256 key the
  // bit string is the last 65 bytes (uncompressed point) after its unused-bits byte.
  const point = spki.subarray(spki.length - 65);
  return createHash('sha1').update(point).digest();
}

export interface CertificateSpec {
  /** Big-endian magnitude of the serial number (positive). */
  readonly serial: Buffer;
  readonly subject: readonly NameAttribute[];
  /** The issuer's subject, DER (encodeName, or read from the issuer certificate's raw bytes). */
  readonly issuerName: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly publicKey: KeyObject;
  readonly isCA: boolean;
  readonly keyUsage: KeyUsages;
  readonly extKeyUsage?: 'serverAuth' | 'clientAuth';
  readonly dnsNames?: readonly string[];
  readonly ips?: readonly string[];
  /** The issuer's key identifier (authorityKeyIdentifier); absent on a self-signed root. */
  readonly authorityKeyId?: Buffer;
  /** The issuer's private key (the subject's own for a self-signed root). */
  readonly signingKey: KeyObject;
}

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  // IPv6: expand `::`, then 8 groups of 16 bits.
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** A signed certificate, DER. */
export function createCertificate(spec: CertificateSpec): Buffer {
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const extensions: Buffer[] = [
    extension(OID.basicConstraints, true, spec.isCA ? sequence(booleanTrue()) : sequence()),
    extension(OID.keyUsage, true, keyUsageBits(spec.keyUsage)),
  ];
  if (spec.extKeyUsage) extensions.push(extension(OID.extKeyUsage, false, sequence(oid(OID[spec.extKeyUsage]))));
  if (spec.isCA) extensions.push(extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(spec.publicKey))));
  if (spec.authorityKeyId) extensions.push(extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, spec.authorityKeyId))));
  const names = [...(spec.dnsNames ?? []).map((d) => implicit(2, Buffer.from(d, 'ascii'))), ...(spec.ips ?? []).map((ip) => implicit(7, ipBytes(ip)))];
  if (names.length > 0) extensions.push(extension(OID.subjectAltName, false, sequence(...names)));
  const tbs = sequence(
    explicit(0, tlv(0x02, Buffer.of(2))),
    unsignedInteger(spec.serial),
    algorithm,
    spec.issuerName,
    sequence(time(spec.notBefore), time(spec.notAfter)),
    encodeName(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(...extensions)),
  );
  // node:crypto writes ECDSA signatures as DER ECDSA-Sig-Value, as X.509 wants them.
  const signature = sign('sha256', tbs, spec.signingKey);
  return sequence(tbs, algorithm, bitString(signature));
}

/** PEM armour for DER bytes (64-column base64, as Go's pem.Encode writes). */
export function toPem(der: Buffer, label: string): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** The subject Name of a DER certificate, DER (what its children carry as issuer). */
export function subjectNameOf(certDer: Buffer): Buffer {
  // Certificate { tbs { [0] version, serial, sigAlg, issuer, validity, subject, ... }, ... }
  const tbs = children(children(certDer)[0]!);
  return tbs[5]!;
}

/** The TLVs inside a constructed TLV. */
function children(der: Buffer): Buffer[] {
  const { start, end } = contentRange(der, 0);
  const out: Buffer[] = [];
  for (let at = start; at < end; ) {
    const r = contentRange(der, at);
    out.push(der.subarray(at, r.end));
    at = r.end;
  }
  return out;
}

function contentRange(der: Buffer, at: number): { start: number; end: number } {
  let len = der[at + 1]!;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[at + 2 + i]!;
    start += n;
  }
  return { start, end: start + len };
}
