// The Kubernetes IP and CIDR libraries' values (apiserver/pkg/cel/library/ip.go, cidr.go): addresses and
// prefixes parsed exactly as Go's net/netip does (ParseAddr, ParsePrefix, with its error texts), printed
// as netip prints them, with kube's extra rules (no zones, no IPv4-mapped IPv6 addresses).

function fail(message: string): never {
  throw new Error(message);
}

const quote = (s: string): string => JSON.stringify(s);

function addrError(input: string, msg: string, at?: string): Error {
  return new Error(`ParseAddr(${quote(input)}): ${msg}${at ? ` (at ${quote(at)})` : ''}`);
}

function parseIPv4Fields(input: string, off: number, end: number, out: Uint8Array, at: number): void {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (s[i] === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      out[at + pos++] = val;
      val = 0;
      digits = 0;
    } else {
      throw addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  out[at + 3] = val;
}

function hexValue(c: string): number {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

function parseIPv6(input: string): { bytes: Uint8Array; zone: string } {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Uint8Array(16);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s[off] as string);
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone.length > 0 ? zone.length + 1 : 0);
      parseIPv4Fields(input, end - s.length, end, ip, i);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] as number;
    ip.fill(0, ellipsis, ellipsis + n);
  } else if (ellipsis >= 0) {
    throw addrError(input, 'the :: must expand to at least one field of zeros');
  }
  return { bytes: ip, zone };
}

/** An IPv4 (4 bytes) or IPv6 (16 bytes) address, as netip.Addr. */
export class IPAddress {
  readonly celTypeName = 'net.IP';
  constructor(
    readonly bytes: Uint8Array,
    readonly zone = '',
  ) {}

  get is4(): boolean {
    return this.bytes.length === 4;
  }

  get is4In6(): boolean {
    const b = this.bytes;
    return b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  }

  /** kube's Size(): the address length in bytes. */
  celSize(): number {
    return this.bytes.length;
  }

  equals(o: IPAddress): boolean {
    return this.zone === o.zone && this.bytes.length === o.bytes.length && this.bytes.every((x, i) => x === o.bytes[i]);
  }

  isUnspecified(): boolean {
    return this.bytes.every((x) => x === 0);
  }

  isLoopback(): boolean {
    if (this.is4In6) return this.bytes[12] === 127;
    if (this.is4) return this.bytes[0] === 127;
    return this.bytes.slice(0, 15).every((x) => x === 0) && this.bytes[15] === 1;
  }

  isMulticast(): boolean {
    if (this.is4In6) return ((this.bytes[12] as number) & 0xf0) === 0xe0;
    if (this.is4) return ((this.bytes[0] as number) & 0xf0) === 0xe0;
    return this.bytes[0] === 0xff;
  }

  isLinkLocalMulticast(): boolean {
    if (this.is4In6) return this.bytes[12] === 224 && this.bytes[13] === 0 && this.bytes[14] === 0;
    if (this.is4) return this.bytes[0] === 224 && this.bytes[1] === 0 && this.bytes[2] === 0;
    return this.bytes[0] === 0xff && ((this.bytes[1] as number) & 0x0f) === 0x02;
  }

  isLinkLocalUnicast(): boolean {
    if (this.is4In6) return this.bytes[12] === 169 && this.bytes[13] === 254;
    if (this.is4) return this.bytes[0] === 169 && this.bytes[1] === 254;
    return this.bytes[0] === 0xfe && ((this.bytes[1] as number) & 0xc0) === 0x80;
  }

  /** netip's IsGlobalUnicast (private and ULA addresses count as global, as in package net). */
  isGlobalUnicast(): boolean {
    const ip = this.is4In6 ? new IPAddress(this.bytes.slice(12)) : this;
    if (ip.is4 && (ip.isUnspecified() || ip.bytes.every((x) => x === 255))) return false;
    return !ip.isUnspecified() && !ip.isLoopback() && !ip.isMulticast() && !ip.isLinkLocalUnicast();
  }

  /** netip's String: dotted quad, or RFC 5952 text with the longest run of zero groups elided. */
  toString(): string {
    const b = this.bytes;
    if (this.is4) return [...b].join('.');
    if (this.is4In6) return `::ffff:${[...b.slice(12)].join('.')}${this.zone ? `%${this.zone}` : ''}`;
    const groups = Array.from({ length: 8 }, (_, i) => ((b[2 * i] as number) << 8) | (b[2 * i + 1] as number));
    let bestStart = -1;
    let bestLen = 0;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i >= 2 && j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    let out = '';
    for (let i = 0; i < 8; i++) {
      if (i === bestStart) {
        out += '::';
        i += bestLen - 1;
        continue;
      }
      if (out !== '' && !out.endsWith(':')) out += ':';
      out += (groups[i] as number).toString(16);
    }
    return out + (this.zone ? `%${this.zone}` : '');
  }
}

/** Go's netip.ParseAddr. */
export function parseAddr(s: string): IPAddress {
  for (const c of s) {
    if (c === '.') {
      const b = new Uint8Array(4);
      parseIPv4Fields(s, 0, s.length, b, 0);
      return new IPAddress(b);
    }
    if (c === ':') {
      const { bytes, zone } = parseIPv6(s);
      return new IPAddress(bytes, zone);
    }
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

/** kube's parseIPAddr: netip's parse without zones or IPv4-mapped IPv6 addresses. */
export function parseKubeIP(raw: string): IPAddress {
  let addr: IPAddress;
  try {
    addr = parseAddr(raw);
  } catch (error) {
    return fail(`IP Address ${quote(raw)} parse error during conversion from string: ${(error as Error).message}`);
  }
  if (addr.zone !== '') fail(`IP address ${quote(raw)} with zone value is not allowed`);
  if (addr.is4In6) fail(`IPv4-mapped IPv6 address ${quote(raw)} is not allowed`);
  return addr;
}

function maskBytes(bytes: Uint8Array, bits: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    out[i] = (bytes[i] as number) & ((0xff << (8 - keep)) & 0xff);
  }
  return out;
}

/** An address with a prefix length, as netip.Prefix (the address keeps its host bits). */
export class CIDRPrefix {
  readonly celTypeName = 'net.CIDR';
  constructor(
    readonly addr: IPAddress,
    readonly bits: number,
  ) {}

  /** kube's Size(): the prefix length in whole bytes, rounded up. */
  celSize(): number {
    return Math.ceil(this.bits / 8);
  }

  equals(o: CIDRPrefix): boolean {
    return this.bits === o.bits && this.addr.equals(o.addr);
  }

  masked(): CIDRPrefix {
    return new CIDRPrefix(new IPAddress(maskBytes(this.addr.bytes, this.bits)), this.bits);
  }

  contains(ip: IPAddress): boolean {
    if (ip.zone !== '' || ip.bytes.length !== this.addr.bytes.length) return false;
    const a = maskBytes(ip.bytes, this.bits);
    const b = maskBytes(this.addr.bytes, this.bits);
    return a.every((x, i) => x === b[i]);
  }

  overlaps(o: CIDRPrefix): boolean {
    if (o.addr.bytes.length !== this.addr.bytes.length) return false;
    const bits = Math.min(this.bits, o.bits);
    const a = maskBytes(this.addr.bytes, bits);
    const b = maskBytes(o.addr.bytes, bits);
    return a.every((x, i) => x === b[i]);
  }

  toString(): string {
    return `${this.addr.toString()}/${this.bits}`;
  }
}

function prefixError(input: string, msg: string): Error {
  return new Error(`netip.ParsePrefix(${quote(input)}): ${msg}`);
}

/** Go's netip.ParsePrefix. */
export function parsePrefix(s: string): CIDRPrefix {
  const i = s.lastIndexOf('/');
  if (i < 0) throw prefixError(s, "no '/'");
  let ip: IPAddress;
  try {
    ip = parseAddr(s.slice(0, i));
  } catch (error) {
    throw prefixError(s, (error as Error).message);
  }
  if (!ip.is4 && ip.zone !== '') throw prefixError(s, 'IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(i + 1);
  // Go rejects a sign or leading zero before strconv.Atoi sees the digits.
  const first = bitsText[0] ?? '';
  if ((bitsText.length > 1 && !(first >= '1' && first <= '9')) || !/^[0-9]+$/.test(bitsText)) throw prefixError(s, `bad bits after slash: ${quote(bitsText)}`);
  const bits = Number(bitsText);
  if (!Number.isInteger(bits)) throw prefixError(s, `bad bits after slash: ${quote(bitsText)}`);
  if (bits < 0 || bits > (ip.is4 ? 32 : 128)) throw prefixError(s, 'prefix length out of range');
  return new CIDRPrefix(ip, bits);
}

/** kube's parseCIDR. */
export function parseKubeCIDR(raw: string): CIDRPrefix {
  let p: CIDRPrefix;
  try {
    p = parsePrefix(raw);
  } catch (error) {
    return fail(`network address parse error during conversion from string: network address parse error during conversion from string: ${(error as Error).message}`);
  }
  if (p.addr.is4In6) fail(`network address parse error during conversion from string: IPv4-mapped IPv6 address ${quote(raw)} is not allowed`);
  return p;
}

export function isKubeIP(s: string): boolean {
  try {
    parseKubeIP(s);
    return true;
  } catch {
    return false;
  }
}

export function isKubeCIDR(s: string): boolean {
  try {
    parseKubeCIDR(s);
    return true;
  } catch {
    return false;
  }
}
