// The Kubernetes CEL libraries (apiserver/pkg/cel/library) registered on the engine: lists, regex,
// URLs, quantities, authorizer, the extended-strings functions the engine lacks, cross-type numeric
// equality and the optional helpers. Function names and error texts follow kube-apiserver.
import { Environment, Optional } from '@marcbachmann/cel-js';
import { UnsignedInt, Duration } from '@marcbachmann/cel-js/evaluator';
import { Quantity, parseQuantity, parseQuantityOrError, quantityFromInt } from './quantity.ts';
import { AuthorizerValue, DecisionValue, ResourceCheckValue, GroupCheckValue, PathCheckValue } from './authorizer.ts';
import { KubeUrl, parseKubeUrl, parseKubeUrlValue } from './url.ts';
import { celEquals } from './values.ts';
import { compareTimestamps } from './timestamps.ts';
import { formatString, quoteString } from './strings-ext.ts';
import { registerComprehensionMacros } from './comprehensions.ts';
import { registerCoreOverloads } from './core-overloads.ts';
import { registerRewriteHelpers } from './source-rewrite.ts';
import { regexMatches, regexFind, regexFindAll } from './regex.ts';
import { registerNetFormatSets } from './kube-net-format-sets.ts';

/** The receiver of `strings.quote`; CEL namespaces are constants of their own type in the engine. */
class StringsNamespace {}

function fail(message: string): never {
  throw new Error(message);
}

/** CEL ordering of two values of one comparable type (cel-go's Compare; numbers across kinds); NaN when incomparable. */
function compareValues(a: unknown, b: unknown): number {
  const x = a instanceof UnsignedInt ? a.value : a;
  const y = b instanceof UnsignedInt ? b.value : b;
  if ((typeof x === 'bigint' || typeof x === 'number') && (typeof y === 'bigint' || typeof y === 'number')) return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'string' && typeof y === 'string') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'boolean' && typeof y === 'boolean') return Number(x) - Number(y);
  if (x instanceof Uint8Array && y instanceof Uint8Array) return Buffer.compare(Buffer.from(x.buffer, x.byteOffset, x.byteLength), Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  if (x instanceof Date && y instanceof Date) return compareTimestamps(x, y);
  if (x instanceof Duration && y instanceof Duration) return x.seconds < y.seconds ? -1 : x.seconds > y.seconds ? 1 : Math.sign(x.nanos - y.nanos);
  // cel-go's Compare returns an error value for values of different types, which the lists
  // library's tests (== -1, == 1) never match: such pairs count as neither less nor greater.
  return NaN;
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;
const UINT64_MAX = (1n << 64n) - 1n;

function addValues(acc: unknown, v: unknown): unknown {
  if (typeof acc === 'bigint' && typeof v === 'bigint') {
    const r = acc + v;
    return r < INT64_MIN || r > INT64_MAX ? fail('integer overflow') : r;
  }
  if (typeof acc === 'number' && typeof v === 'number') return acc + v;
  if (acc instanceof UnsignedInt && v instanceof UnsignedInt) {
    const r = acc.value + v.value;
    return r > UINT64_MAX ? fail('unsigned integer overflow') : new UnsignedInt(r);
  }
  if (acc instanceof Duration && v instanceof Duration) return acc.addDuration(v);
  return fail('no such overload');
}

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'];
const SUMMABLE: ReadonlyArray<readonly [string, () => unknown]> = [
  ['int', () => 0n], ['uint', () => new UnsignedInt(0n)], ['double', () => 0], ['google.protobuf.Duration', () => new Duration(0n, 0)],
];

/** kube's lists library: typed overloads, so `['a'].sum()` or `[1u].indexOf(1)` fail to compile as in kube. */
function registerLists(env: Environment): void {
  const extreme = (name: string, prefer: number) => (l: unknown[]) => {
    let best: unknown;
    l.forEach((v, i) => {
      if (i === 0 || compareValues(best, v) === prefer) best = v;
    });
    return l.length === 0 ? fail(`${name} called on empty list`) : best;
  };
  for (const t of COMPARABLE) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (l: unknown[]) => {
      for (let i = 1; i < l.length; i++) if (compareValues(l[i - 1], l[i]) > 0) return false;
      return true;
    });
    env.registerFunction(`list<${t}>.min(): ${t}`, extreme('min', 1));
    env.registerFunction(`list<${t}>.max(): ${t}`, extreme('max', -1));
  }
  for (const [t, zero] of SUMMABLE) {
    env.registerFunction(`list<${t}>.sum(): ${t}`, (l: unknown[]) => l.reduce(addValues, zero()));
  }
  env.registerFunction('list<T>.indexOf(T): int', (l: unknown[], x: unknown) => BigInt(l.findIndex((v) => celEquals(v, x))));
  env.registerFunction('list<T>.lastIndexOf(T): int', (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
    return -1n;
  });
}

function registerRegex(env: Environment): void {
  // The receiver form `s.matches(re)` is the engine's own overload, which the registry cannot
  // replace; evaluation-patches.ts re-points its call nodes at regexMatches.
  env.registerFunction('matches(string, string): bool', (s: string, re: string) => regexMatches(s, re));
  env.registerFunction('string.find(string): string', (s: string, re: string) => regexFind(s, re));
  env.registerFunction('string.findAll(string): list<string>', (s: string, re: string) => regexFindAll(s, re, -1n));
  env.registerFunction('string.findAll(string, int): list<string>', (s: string, re: string, n: bigint) => regexFindAll(s, re, n));
}

function registerStrings(env: Environment): void {
  env.registerFunction('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = [...s];
    if (i < 0n || i > BigInt(cps.length)) fail(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  // Go's strings.Replace: an empty old string matches before every code point and at the end.
  const replace = (s: string, from: string, to: string, n: bigint) => {
    if (from === '') {
      const runes = [...s];
      const limit = n < 0n ? runes.length + 1 : Number(n < BigInt(runes.length + 1) ? n : BigInt(runes.length + 1));
      let out = '';
      for (let i = 0; i <= runes.length; i++) out += (i < limit ? to : '') + (runes[i] ?? '');
      return out;
    }
    if (n < 0n) return s.split(from).join(to);
    let out = s;
    let pos = 0;
    for (let k = 0n; k < n; k++) {
      const at = out.indexOf(from, pos);
      if (at < 0) break;
      out = out.slice(0, at) + to + out.slice(at + from.length);
      pos = at + to.length + (from === '' ? 1 : 0);
    }
    return out;
  };
  env.registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) => replace(s, a, b, -1n));
  env.registerFunction('string.replace(string, string, int): string', replace);
  env.registerFunction('string.format(list): string', (s: string, args: unknown[]) => formatString(s, args));
  env.registerType('StringsNamespace', StringsNamespace);
  env.registerConstant('strings', 'StringsNamespace', new StringsNamespace());
  env.registerFunction('StringsNamespace.quote(string): string', (_ns: unknown, s: string) => quoteString(s));
}

function registerUrls(env: Environment): void {
  env.registerType('kubernetes.URL', KubeUrl);
  env.registerFunction('url(string): kubernetes.URL', (s: string) => {
    try {
      return parseKubeUrlValue(s);
    } catch (error) {
      return fail(`URL parse error during conversion from string: ${(error as Error).message}`);
    }
  });
  env.registerOperator('kubernetes.URL == kubernetes.URL', (a: KubeUrl, b: KubeUrl) => a.equals(b));
  env.registerFunction('isURL(string): bool', (s: string) => parseKubeUrl(s) !== undefined);
  env.registerFunction('kubernetes.URL.getScheme(): string', (u: KubeUrl) => u.scheme);
  env.registerFunction('kubernetes.URL.getHost(): string', (u: KubeUrl) => u.host);
  env.registerFunction('kubernetes.URL.getHostname(): string', (u: KubeUrl) => u.hostname);
  env.registerFunction('kubernetes.URL.getPort(): string', (u: KubeUrl) => u.port);
  env.registerFunction('kubernetes.URL.getEscapedPath(): string', (u: KubeUrl) => u.escapedPath);
  env.registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: KubeUrl) => u.query());
}

function toQuantity(v: Quantity | bigint): Quantity {
  return typeof v === 'bigint' ? quantityFromInt(v) : v;
}

function registerQuantities(env: Environment): void {
  env.registerType('kubernetes.Quantity', Quantity);
  env.registerFunction('quantity(string): kubernetes.Quantity', (s: string) => {
    const q = parseQuantityOrError(s);
    return q instanceof Quantity ? q : fail(q.error);
  });
  env.registerFunction('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined);
  // kube 1.32 declares sign as a global function, not a member (quantity.go).
  env.registerFunction('sign(kubernetes.Quantity): int', (q: Quantity) => BigInt(q.sign()));
  env.registerFunction('kubernetes.Quantity.isInteger(): bool', (q: Quantity) => q.asInt64() !== undefined);
  env.registerFunction('kubernetes.Quantity.asInteger(): int', (q: Quantity) => q.asInt64() ?? fail('cannot convert value to integer'));
  env.registerFunction('kubernetes.Quantity.asApproximateFloat(): double', (q: Quantity) => q.asApproximateFloat());
  for (const arg of ['kubernetes.Quantity', 'int']) {
    env.registerFunction(`kubernetes.Quantity.add(${arg}): kubernetes.Quantity`, (q: Quantity, o: Quantity | bigint) => q.plus(toQuantity(o)));
    env.registerFunction(`kubernetes.Quantity.sub(${arg}): kubernetes.Quantity`, (q: Quantity, o: Quantity | bigint) => q.minus(toQuantity(o)));
  }
  env.registerFunction('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: Quantity, b: Quantity) => a.cmp(b) < 0);
  env.registerFunction('kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool', (a: Quantity, b: Quantity) => a.cmp(b) > 0);
  env.registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: Quantity, b: Quantity) => BigInt(a.cmp(b)));
  env.registerOperator('kubernetes.Quantity == kubernetes.Quantity', (a: Quantity, b: Quantity) => a.equals(b));
}

function registerAuthorizer(env: Environment): void {
  env.registerType('kubernetes.authorization.Authorizer', AuthorizerValue);
  env.registerType('kubernetes.authorization.PathCheck', PathCheckValue);
  env.registerType('kubernetes.authorization.GroupCheck', GroupCheckValue);
  env.registerType('kubernetes.authorization.ResourceCheck', ResourceCheckValue);
  env.registerType('kubernetes.authorization.Decision', DecisionValue);
  const A = 'kubernetes.authorization.Authorizer';
  const R = 'kubernetes.authorization.ResourceCheck';
  env.registerFunction(`${A}.path(string): kubernetes.authorization.PathCheck`, (a: AuthorizerValue, p: string) => a.path(p));
  env.registerFunction(`${A}.group(string): kubernetes.authorization.GroupCheck`, (a: AuthorizerValue, g: string) => a.group(g));
  env.registerFunction(`${A}.serviceAccount(string, string): ${A}`, (a: AuthorizerValue, ns: string, n: string) => a.serviceAccount(ns, n));
  env.registerFunction(`kubernetes.authorization.GroupCheck.resource(string): ${R}`, (g: GroupCheckValue, r: string) => g.resource(r));
  env.registerFunction(`${R}.subresource(string): ${R}`, (r: ResourceCheckValue, s: string) => r.with({ subresource: s }));
  env.registerFunction(`${R}.namespace(string): ${R}`, (r: ResourceCheckValue, s: string) => r.with({ namespace: s }));
  env.registerFunction(`${R}.name(string): ${R}`, (r: ResourceCheckValue, s: string) => r.with({ name: s }));
  env.registerFunction(`${R}.check(string): kubernetes.authorization.Decision`, (r: ResourceCheckValue, verb: string) => r.check(verb));
  env.registerFunction('kubernetes.authorization.PathCheck.check(string): kubernetes.authorization.Decision', (p: PathCheckValue, verb: string) => p.check(verb));
  const D = 'kubernetes.authorization.Decision';
  env.registerFunction(`${D}.allowed(): bool`, (d: DecisionValue) => d.decision === 'allow');
  env.registerFunction(`${D}.reason(): string`, (d: DecisionValue) => d.reason);
  env.registerFunction(`${D}.errored(): bool`, (d: DecisionValue) => d.error !== undefined);
  env.registerFunction(`${D}.error(): string`, (d: DecisionValue) => d.error ?? '');
}

function isZeroValue(v: unknown): boolean {
  if (v === null || v === false || v === '' || v === 0 || v === 0n) return true;
  if (v instanceof UnsignedInt) return v.value === 0n;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (typeof v === 'object' && v.constructor === Object) return Object.keys(v).length === 0;
  if (v instanceof Duration) return v.seconds === 0n && v.nanos === 0;
  return false;
}

/**
 * `null == x` type-checks in cel-go when x's type is nullable (messages such as timestamps and
 * durations, optionals); numbers, strings, lists and maps never equal null and are rejected.
 */
function registerNullEquality(env: Environment): void {
  for (const t of ['google.protobuf.Timestamp', 'google.protobuf.Duration', 'optional<dyn>']) {
    env.registerOperator(`${t} == null`, () => false);
  }
}

/**
 * cel-go's checker keeps the legacy rule that null is assignable to timestamps and durations, so
 * ordering null against null, a timestamp, a duration or dyn type-checks (as bool) and fails only
 * when evaluated, where no overload accepts a null operand.
 */
function registerNullOrdering(env: Environment): void {
  const noOverload = () => fail('no such overload');
  for (const op of ['<', '<=', '>', '>=']) {
    env.registerOperator(`null ${op} null`, noOverload);
    for (const t of ['google.protobuf.Timestamp', 'google.protobuf.Duration']) {
      env.registerOperator(`null ${op} ${t}`, noOverload);
      env.registerOperator(`${t} ${op} null`, noOverload);
    }
  }
}

/**
 * The environment, with every function and operator registered through it declared synchronous.
 * The engine takes a handler without that declaration to be possibly async: every node above such
 * a call then checks for promises, and its list elements and call arguments are evaluated last to
 * first (evaluation-patches.ts restores cel-go's order only for synchronous nodes), which decides
 * which error wins and what a function that changes its receiver (Quantity's Cmp) leaves for the
 * next element.
 */
function synchronousRegistrar(env: Environment): Environment {
  type Register = (signature: string, handler: unknown, opts?: object) => Environment;
  const proxy: Environment = new Proxy(env, {
    get(target, prop) {
      if (prop === 'registerFunction' || prop === 'registerOperator') {
        const register = (target[prop] as unknown as Register).bind(target);
        return (signature: string, handler: unknown, opts?: object) => (register(signature, handler, { async: false, ...opts }), proxy);
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return proxy;
}

/** Builds the engine environment with every Kubernetes library; variables are declared by the caller. */
export function createKubernetesEngine(expressions: 'new' | 'stored' = 'stored'): Environment {
  // cel-go puts no limit on the elements of a list or map literal (the expression's size bounds them).
  const limits = { maxListElements: Number.MAX_SAFE_INTEGER, maxMapEntries: Number.MAX_SAFE_INTEGER };
  const engine = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: true, limits });
  const env = synchronousRegistrar(engine);
  registerNullEquality(env);
  registerNullOrdering(env);
  registerCoreOverloads(env);
  registerLists(env);
  registerRegex(env);
  registerStrings(env);
  registerUrls(env);
  registerQuantities(env);
  registerAuthorizer(env);
  registerNetFormatSets(env);
  registerComprehensionMacros(env, expressions === 'stored');
  registerRewriteHelpers(env);
  env.registerFunction('OptionalNamespace.ofNonZeroValue(dyn): optional<dyn>', (_ns: unknown, v: unknown) => (isZeroValue(v) ? Optional.none() : Optional.of(v)));
  return engine;
}

