// Regular expressions of `matches`, `find` and `findAll` with RE2 syntax and semantics, as cel-go and
// kube-apiserver evaluate them with Go's regexp package. Matching is linear in the input (RE2JS), so
// a rule's pattern cannot backtrack catastrophically however the cost budget is set; syntax RE2
// rejects (lookaround, backreferences) is an error with Go's message.
import { RE2JS } from 're2js';

type Re2 = ReturnType<RE2JS['re2']>;

/** A pattern compiled once: the program, or Go's parse error text. */
export type CompiledRegex =
  | { readonly kind: 'regex'; readonly re: Re2 }
  | { readonly kind: 'invalid'; readonly message: string };

const MAX_CACHED_PATTERNS = 1_000;
const cache = new Map<string, CompiledRegex>();

function compileUncached(pattern: string): CompiledRegex {
  try {
    return { kind: 'regex', re: RE2JS.compile(pattern).re2() };
  } catch (error) {
    // RE2JS reports parse errors with Go's regexp texts ("error parsing regexp: ...").
    return { kind: 'invalid', message: error instanceof Error ? error.message : String(error) };
  }
}

/** Compiles a pattern with RE2 syntax, once per distinct pattern string; never throws. */
export function compileRegex(pattern: string): CompiledRegex {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    compiled = compileUncached(pattern);
    if (cache.size >= MAX_CACHED_PATTERNS) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

function fail(message: string): never {
  throw new Error(message);
}

/** cel-go's `matches` raises Go's parse error as is; the Kubernetes find/findAll prefix it. */
function programFor(pattern: string | CompiledRegex, prefix: string): Re2 {
  const compiled = typeof pattern === 'string' ? compileRegex(pattern) : pattern;
  return compiled.kind === 'regex' ? compiled.re : fail(prefix + compiled.message);
}

/** True when the pattern matches any substring of s (an unanchored search, as RE2's MatchString). */
export function regexMatches(s: string, pattern: string | CompiledRegex): boolean {
  return programFor(pattern, '').match(s);
}

/** The leftmost match of the pattern in s, or '' when there is none. */
export function regexFind(s: string, pattern: string | CompiledRegex): string {
  return programFor(pattern, 'Illegal regex: ').find(s) as string;
}

/** Up to `limit` successive non-overlapping matches (all of them when limit < 0), as Go's FindAllString. */
export function regexFindAll(s: string, pattern: string | CompiledRegex, limit: bigint): string[] {
  const re = programFor(pattern, 'Illegal regex: ');
  if (limit === 0n) return [];
  const n = limit < 0n || limit > BigInt(s.length + 1) ? -1 : Number(limit);
  return (re.findAll(s, n) as string[] | null) ?? [];
}

/**
 * The compile-time error for a literal pattern, as kube-apiserver reports it: cel-go's regex-literal
 * validator for `matches` (a literal argument), program instantiation (folding) otherwise.
 */
export function literalPatternError(functionName: string, pattern: string): string | undefined {
  const compiled = compileRegex(pattern);
  if (compiled.kind === 'regex') return undefined;
  return functionName === 'matches' ? 'invalid matches argument' : `program instantiation failed: ${compiled.message}`;
}
