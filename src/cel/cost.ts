// Runtime cost, charged exactly as kube-apiserver's cel-go v0.22 tracker does (interpreter/runtimecost.go
// with apiserver/pkg/cel/library/cost.go as the call-cost estimator). Every node of a compiled program is
// wrapped once so evaluating it charges what cel-go's plan for the same expression would:
//   - constants cost 0, and so do list/map literals whose elements are all constant and conversions of
//     constants (cel-go's OptOptimize folds them when the program is built);
//   - a variable costs 1, each field select or index on it 1 more; selecting from something that is not
//     a variable (a call result, a literal) costs 1 extra for the relative attribute;
//   - an attribute used as a ternary branch or as an index is not observed itself (only its qualifiers);
//   - a list literal costs 10, a map literal 30, a call 1 unless its function has a size-based cost;
//   - comprehensions pay for the accumulator and loop-condition steps of cel-go's macro expansion.
// Evaluation stops with kube-apiserver's error as soon as the budget is exceeded.

export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';
export const SELECT_AND_IDENT_COST = 1;
export const LIST_CREATE_BASE_COST = 10;
export const MAP_CREATE_BASE_COST = 30;
export const STRUCT_CREATE_BASE_COST = 40;
export const STRING_TRAVERSAL_FACTOR = 0.1;
export const REGEX_LENGTH_FACTOR = 0.25;
/** kube-apiserver's fixed cost of one authorization check (allows two per expression). */
export const AUTHZ_CHECK_COST = 350_000;

/** Thrown to unwind evaluation when the budget is exceeded; never escapes evaluate(). */
export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_MESSAGE);
  }
}

interface Tracker {
  cost: number;
  readonly limit: number;
  exceeded: boolean;
}

let active: Tracker | undefined;

export function charge(n: number, unitSteps = false): void {
  const t = active;
  if (t === undefined || n === 0) return;
  // cel-go stops at the first step past the limit; the engine may absorb that error and go on,
  // but the cost stays where the limit was crossed. A charge standing for several one-unit steps
  // (a comprehension's accumulator and condition) crosses the limit by one, as those steps would.
  if (t.exceeded) throw new CostLimitExceeded();
  t.cost = unitSteps && t.cost + n > t.limit ? Math.max(t.cost, t.limit) + 1 : t.cost + n;
  if (t.cost > t.limit) {
    t.exceeded = true;
    throw new CostLimitExceeded();
  }
}

/** Runs fn with a fresh tracker; the engine may swallow the thrown limit error, so `exceeded` is authoritative. */
export function withCostBudget<T>(limit: number, fn: () => T): { result: T | undefined; error: unknown; cost: number; exceeded: boolean } {
  const outer = active;
  const t: Tracker = { cost: 0, limit, exceeded: false };
  active = t;
  try {
    const result = fn();
    return { result, error: undefined, cost: t.cost, exceeded: t.exceeded };
  } catch (error) {
    return { result: undefined, error, cost: t.cost, exceeded: t.exceeded };
  } finally {
    active = outer;
  }
}

const SURROGATE = /[\ud800-\udfff]/;

/** cel-go's Sizer size: code points of a string, bytes of bytes, entries of lists and maps; 1 otherwise. */
export function actualSize(v: unknown): number {
  if (typeof v === 'string') return SURROGATE.test(v) ? [...v].length : v.length;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (v instanceof Map) return v.size;
  if (v !== null && typeof v === 'object') {
    const sized = v as { celSize?: () => number };
    if (typeof sized.celSize === 'function') return sized.celSize();
    if ((v as object).constructor === Object) return Object.keys(v).length;
  }
  return 1;
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** kube's list-library traversal cost: strings and bytes by a tenth of their byte length (rounded down), containers by their members. */
export function traversalCost(v: unknown): number {
  if (typeof v === 'string') return Math.floor(utf8Length(v) * STRING_TRAVERSAL_FACTOR);
  if (v instanceof Uint8Array) return Math.floor(v.length * STRING_TRAVERSAL_FACTOR);
  if (Array.isArray(v)) {
    let c = 0;
    for (const x of v) c += traversalCost(x);
    return c;
  }
  if (v instanceof Map) {
    let c = 0;
    for (const [k, x] of v) c += traversalCost(k) + traversalCost(x);
    return c;
  }
  if (v !== null && typeof v === 'object' && (v as object).constructor === Object) {
    let c = 0;
    for (const [k, x] of Object.entries(v)) c += traversalCost(k) + traversalCost(x);
    return c;
  }
  return 1;
}

const ceilTenth = (n: number): number => Math.ceil(n * STRING_TRAVERSAL_FACTOR);

/** cel-go's regex cost: traversal of the input (plus one) times a quarter of the pattern's length. */
export function regexCost(input: unknown, pattern: unknown): number {
  return Math.ceil((1 + actualSize(input)) * STRING_TRAVERSAL_FACTOR) * Math.ceil(actualSize(pattern) * REGEX_LENGTH_FACTOR);
}

/** Values of kube's own CEL types (Quantity, IP, CIDR, URL, format, authorizer): equality costs 1. */
function isKubeValue(v: unknown): boolean {
  return v !== null && typeof v === 'object' && typeof (v as { celTypeName?: unknown }).celTypeName === 'string';
}

function isStringOrBytes(v: unknown): boolean {
  return typeof v === 'string' || v instanceof Uint8Array;
}

/** The maximum regex size of a named format (kube's Format.MaxRegexSize), for `validate`. */
function formatRegexSize(v: unknown): number | undefined {
  const size = (v as { maxRegexSize?: unknown } | null)?.maxRegexSize;
  return typeof size === 'number' ? size : undefined;
}

/**
 * kube's selectorCostEstimate for a selector of n characters: a list (10), one traversal, and per
 * expected requirement (one per two characters) a list and a struct (10 + 40).
 */
export function selectorCost(n: number): number {
  return 10 + Math.ceil(n * 0.1) + Math.ceil(n * 0.5) * 50;
}

/**
 * The cost of one call, from its function name, its arguments (the receiver first) and its result:
 * kube-apiserver's library CallCost first, then cel-go's defaults by overload.
 */
export function callCost(name: string, receiverStyle: boolean, args: readonly unknown[], result: unknown): number {
  const [a0, a1] = args;
  // A well-known message construction (see source-rewrite.ts): cel-go's struct creation cost.
  if (name.startsWith('__pb_')) return STRUCT_CREATE_BASE_COST;
  switch (name) {
    case 'check': return AUTHZ_CHECK_COST;
    case 'fieldSelector': case 'labelSelector':
      return args.length >= 2 ? selectorCost(actualSize(a1)) : 0;
    case 'serviceAccount': case 'path': case 'group': case 'resource': case 'subresource': case 'namespace': case 'name':
    case 'allowed': case 'reason': case 'error': case 'errored':
      return 1;
    case 'isSorted': case 'sum': case 'max': case 'min': case 'indexOf': case 'lastIndexOf':
      return args.length > 0 ? traversalCost(a0) : 0;
    case 'url': case 'lowerAscii': case 'upperAscii': case 'substring': case 'trim':
      return ceilTenth(actualSize(a0));
    case 'replace': case 'split':
      return Math.ceil(actualSize(a0) * 2 * STRING_TRAVERSAL_FACTOR);
    case 'join':
      return Math.ceil(actualSize(result) * 2 * STRING_TRAVERSAL_FACTOR);
    case 'find': case 'findAll':
      return regexCost(a0, a1);
    case 'cidr': case 'isIP': case 'isCIDR': case 'quantity': case 'isQuantity':
      return ceilTenth(actualSize(a0));
    case 'ip':
      return receiverStyle ? 1 : ceilTenth(actualSize(a0));
    case 'ip.isCanonical':
      return Math.ceil(actualSize(a0) * 2 * STRING_TRAVERSAL_FACTOR);
    case 'masked': case 'prefixLength': case 'family': case 'isUnspecified': case 'isLoopback': case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast': case 'isGlobalUnicast':
      return 1;
    case 'containsIP': {
      const c = actualSize(a0);
      return ceilTenth(c + c) + (typeof a1 === 'string' ? ceilTenth(actualSize(a1)) : 0);
    }
    case 'containsCIDR': {
      const c = actualSize(a0);
      return ceilTenth(c + c) + ceilTenth(c) + 1 + (typeof a1 === 'string' ? ceilTenth(actualSize(a1)) : 0);
    }
    case 'validate': {
      const size = formatRegexSize(a0);
      if (size !== undefined) return Math.ceil((1 + actualSize(a1)) * STRING_TRAVERSAL_FACTOR) * Math.ceil(size * REGEX_LENGTH_FACTOR);
      break;
    }
    case 'format.named': case 'sign': case 'asInteger': case 'isInteger': case 'asApproximateFloat': case 'isGreaterThan': case 'isLessThan':
    case 'compareTo': case 'add': case 'sub': case 'getScheme': case 'getHostname': case 'getHost': case 'getPort': case 'getEscapedPath': case 'getQuery':
      return 1;
    case '==': case '!=':
      if (isKubeValue(a0)) return 1;
      return ceilTenth(Math.min(actualSize(a0), actualSize(a1)));
    case '<': case '<=': case '>': case '>=':
      return isStringOrBytes(a0) && isStringOrBytes(a1) ? ceilTenth(Math.min(actualSize(a0), actualSize(a1))) : 1;
    case '+':
      return isStringOrBytes(a0) && isStringOrBytes(a1) ? ceilTenth(actualSize(a0) + actualSize(a1)) : 1;
    case 'in':
      return Array.isArray(a1) ? actualSize(a1) : 1;
    case 'startsWith': case 'endsWith':
      return typeof a0 === 'string' ? ceilTenth(actualSize(a0)) : 1;
    case 'format':
      return receiverStyle && typeof a0 === 'string' ? ceilTenth(actualSize(a0)) : 1;
    case 'strings.quote':
      return ceilTenth(actualSize(a0));
    case 'bytes':
      return typeof a0 === 'string' ? ceilTenth(actualSize(a0)) : 1;
    case 'string':
      return a0 instanceof Uint8Array ? ceilTenth(actualSize(a0)) : 1;
    case 'matches':
      return receiverStyle ? regexCost(a0, a1) : 1;
    case 'contains':
      return typeof a0 === 'string' ? ceilTenth(actualSize(a0)) * ceilTenth(actualSize(a1)) : 1;
    case 'sets.contains': case 'sets.intersects':
      return 1 + Math.floor(actualSize(a0) * actualSize(a1));
    case 'sets.equivalent':
      return 1 + Math.floor(actualSize(a0) * actualSize(a1) * 2);
  }
  return 1;
}

/** Runs fn with no tracker: work cel-go does once when the program is built is not charged. */
export function withoutCharging<T>(fn: () => T): T {
  const outer = active;
  active = undefined;
  try {
    return fn();
  } finally {
    active = outer;
  }
}
