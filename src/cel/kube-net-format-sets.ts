// Registers kube 1.32's IP, CIDR and format libraries and cel-go's sets extension on the engine.
// Function names, overloads and error texts follow apiserver/pkg/cel/library and cel-go/ext/sets.go.
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { IPAddress, CIDRPrefix, parseKubeIP, parseKubeCIDR, isKubeIP, isKubeCIDR } from './net.ts';
import { NamedFormat, NAMED_FORMATS } from './formats.ts';
import { celEquals } from './values.ts';

/** Receivers of namespaced functions (`ip.isCanonical`, `format.named`, `sets.contains`). */
class IpNamespace {}
class FormatNamespace {}
class SetsNamespace {}

function registerIP(env: Environment): void {
  env.registerType('net.IP', IPAddress);
  env.registerType('IpNamespace', IpNamespace);
  env.registerConstant('ip', 'IpNamespace', new IpNamespace());
  env.registerFunction('ip(string): net.IP', (s: string) => parseKubeIP(s));
  env.registerFunction('isIP(string): bool', (s: string) => isKubeIP(s));
  env.registerFunction('IpNamespace.isCanonical(string): bool', (_ns: unknown, s: string) => parseKubeIP(s).toString() === s);
  env.registerFunction('string(net.IP): string', (ip: IPAddress) => ip.toString());
  env.registerFunction('net.IP.family(): int', (ip: IPAddress) => (ip.is4 ? 4n : 6n));
  env.registerFunction('net.IP.isUnspecified(): bool', (ip: IPAddress) => ip.isUnspecified());
  env.registerFunction('net.IP.isLoopback(): bool', (ip: IPAddress) => ip.isLoopback());
  env.registerFunction('net.IP.isLinkLocalMulticast(): bool', (ip: IPAddress) => ip.isLinkLocalMulticast());
  env.registerFunction('net.IP.isLinkLocalUnicast(): bool', (ip: IPAddress) => ip.isLinkLocalUnicast());
  env.registerFunction('net.IP.isGlobalUnicast(): bool', (ip: IPAddress) => ip.isGlobalUnicast());
  env.registerOperator('net.IP == net.IP', (a: IPAddress, b: IPAddress) => a.equals(b));
}

function registerCIDR(env: Environment): void {
  env.registerType('net.CIDR', CIDRPrefix);
  env.registerFunction('cidr(string): net.CIDR', (s: string) => parseKubeCIDR(s));
  env.registerFunction('isCIDR(string): bool', (s: string) => isKubeCIDR(s));
  env.registerFunction('string(net.CIDR): string', (c: CIDRPrefix) => c.toString());
  env.registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CIDRPrefix, ip: IPAddress) => c.contains(ip));
  env.registerFunction('net.CIDR.containsIP(string): bool', (c: CIDRPrefix, s: string) => {
    let ip: IPAddress;
    try {
      ip = parseKubeIP(s);
    } catch {
      // kube passes the parse error on as an operand no overload takes.
      throw new Error('no such overload');
    }
    return c.contains(ip);
  });
  const containsCIDR = (c: CIDRPrefix, o: CIDRPrefix): boolean => c.overlaps(o) && c.bits <= o.bits;
  env.registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR);
  env.registerFunction('net.CIDR.containsCIDR(string): bool', (c: CIDRPrefix, s: string) => containsCIDR(c, parseKubeCIDR(s)));
  env.registerFunction('net.CIDR.ip(): net.IP', (c: CIDRPrefix) => c.addr);
  env.registerFunction('net.CIDR.masked(): net.CIDR', (c: CIDRPrefix) => c.masked());
  env.registerFunction('net.CIDR.prefixLength(): int', (c: CIDRPrefix) => BigInt(c.bits));
  env.registerOperator('net.CIDR == net.CIDR', (a: CIDRPrefix, b: CIDRPrefix) => a.equals(b));
}

function registerFormats(env: Environment): void {
  env.registerType('kubernetes.NamedFormat', NamedFormat);
  env.registerType('FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const [name, f] of NAMED_FORMATS) env.registerFunction(`FormatNamespace.${name}(): kubernetes.NamedFormat`, () => f);
  env.registerFunction('FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_ns: unknown, name: string) => {
    const f = NAMED_FORMATS.get(name);
    return f === undefined ? Optional.none() : Optional.of(f);
  });
  env.registerFunction('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: NamedFormat, s: string) => {
    const problems = f.validate(s);
    return problems.length === 0 ? Optional.none() : Optional.of(problems);
  });
  env.registerOperator('kubernetes.NamedFormat == kubernetes.NamedFormat', (a: NamedFormat, b: NamedFormat) => a.equals(b));
}

const has = (l: readonly unknown[], x: unknown): boolean => l.some((e) => celEquals(e, x));

/** kube's sets library over lists of any element types (cel-go dispatches on the list kind only at runtime). */
export const SET_FUNCTIONS: Readonly<Record<string, (a: readonly unknown[], b: readonly unknown[]) => boolean>> = {
  contains: (a, b) => b.every((x) => has(a, x)),
  equivalent: (a, b) => b.every((x) => has(a, x)) && a.every((x) => has(b, x)),
  intersects: (a, b) => b.some((x) => has(a, x)),
};

function registerSets(env: Environment): void {
  env.registerType('SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  for (const [name, fn] of Object.entries(SET_FUNCTIONS)) {
    env.registerFunction(`SetsNamespace.${name}(list<T>, list<T>): bool`, (_ns: unknown, a: unknown[], b: unknown[]) => fn(a, b));
  }
}

/** Registers the IP, CIDR, format and sets libraries. */
export function registerNetFormatSets(env: Environment): void {
  registerIP(env);
  registerCIDR(env);
  registerFormats(env);
  registerSets(env);
}
