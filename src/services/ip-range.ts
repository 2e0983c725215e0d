/**
 * An IP range from a CIDR (`--service-cluster-ip-range`), IPv4 or IPv6, with addresses addressed by
 * offset. As kube's range allocator, the network address is not handed out (offset 0), nor for
 * IPv4 the broadcast address; a range larger than 2^16 addresses is used in its first 2^16.
 */
import { isIP } from 'node:net';

export interface IpRange {
  readonly cidr: string;
  readonly family: 'IPv4' | 'IPv6';
  /** Addresses that may be allocated. */
  readonly size: number;
  /** The address at `offset` (1 .. size). */
  at(offset: number): string;
  /** The offset of `ip` in the range, or undefined when it is outside what may be allocated. */
  offsetOf(ip: string): number | undefined;
  /** Whether the range's network contains `ip` (allocatable or not). */
  contains(ip: string): boolean;
}

/** Parses a CIDR; throws with kube's words when it is not one. */
export function parseIpRange(cidr: string): IpRange {
  const slash = cidr.indexOf('/');
  const addr = slash < 0 ? '' : cidr.slice(0, slash);
  const bits = slash < 0 ? NaN : Number(cidr.slice(slash + 1));
  const family = isIP(addr);
  const width = family === 4 ? 32 : 128;
  if (family === 0 || !Number.isInteger(bits) || bits < 0 || bits > width) throw new Error(`invalid CIDR address: ${cidr}`);
  const base = toBigInt(addr) & ~((1n << BigInt(width - bits)) - 1n);
  const total = 1n << BigInt(width - bits);
  // kube: the network address (and, for IPv4, the broadcast address) are reserved.
  const usable = family === 4 ? total - 2n : total - 1n;
  const size = Number(usable > 65536n ? 65536n : usable < 0n ? 0n : usable);
  const inNetwork = (ip: string): bigint | undefined => {
    if (isIP(ip) !== family) return undefined;
    const v = toBigInt(ip);
    return v >= base && v < base + total ? v - base : undefined;
  };
  return {
    cidr: `${fromBigInt(base, family)}/${bits}`,
    family: family === 4 ? 'IPv4' : 'IPv6',
    size,
    at: (offset) => fromBigInt(base + BigInt(offset), family),
    offsetOf(ip) {
      const off = inNetwork(ip);
      return off === undefined || off < 1n || off > BigInt(size) ? undefined : Number(off);
    },
    contains: (ip) => inNetwork(ip) !== undefined,
  };
}

export function toBigInt(ip: string): bigint {
  if (isIP(ip) === 4) return ip.split('.').reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
  // IPv6: expand `::` and an embedded IPv4 tail.
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = toBigInt(v4[1]!);
    text = `${text.slice(0, v4.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function fromBigInt(v: bigint, family: number): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((v >> BigInt(i * 16)) & 0xffffn).toString(16));
  // The canonical form: the longest run of zero groups (two or more) as `::`.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== '0') {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** A port range `30000-32767` (`--service-node-port-range`); throws when it is not one. */
export function parsePortRange(text: string): { readonly base: number; readonly size: number; readonly text: string } {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  const lo = m ? Number(m[1]) : NaN;
  const hi = m ? (m[2] !== undefined ? Number(m[2]) : lo) : NaN;
  if (!m || lo < 1 || hi > 65535 || hi < lo) throw new Error(`invalid port range: ${JSON.stringify(text)}`);
  return { base: lo, size: hi - lo + 1, text: `${lo}-${hi}` };
}
