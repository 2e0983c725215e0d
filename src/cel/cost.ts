// Runtime cost: every AST node of a compiled program is wrapped once so that evaluating it charges
// the unit costs of cel-go's runtime tracker (identifier/select 1, constants 0, list literal 40 as
// SPEC.md states, map literal 30, calls 1, plus the Kubernetes library costs), and evaluation stops
// with kube-apiserver's error as soon as the budget is exceeded.

export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';
export const SELECT_AND_IDENT_COST = 1;
export const LIST_CREATE_BASE_COST = 40;
export const MAP_CREATE_BASE_COST = 30;
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

function charge(n: number): void {
  const t = active;
  if (t === undefined) return;
  t.cost += n;
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

function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (v instanceof Map) return v.size;
  if (v !== null && typeof v === 'object') return Object.keys(v).length;
  return 0;
}

export function traversalCost(length: number): number {
  return Math.ceil(length * STRING_TRAVERSAL_FACTOR);
}

/** kube-apiserver's regex cost: traversal of the input times the pattern's state-machine size. */
export function regexCost(input: string, pattern: string): number {
  return Math.ceil((1 + input.length) * STRING_TRAVERSAL_FACTOR) * Math.ceil(pattern.length * REGEX_LENGTH_FACTOR);
}

// The engine's AST node, as far as instrumentation needs it.
export interface EngineNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta: { evaluate: Evaluate; macro?: EngineNode; alternate?: EngineNode };
  evaluate: Evaluate;
}
type Evaluate = (ev: unknown, ast: EngineNode, ctx: unknown) => unknown;

const FREE_OPS = new Set(['value', '&&', '||', '?:', 'comprehension', 'accuValue', 'accuInc', 'accuPush']);
const SELECT_OPS = new Set(['id', '.', '[]', '.?', '[?]']);
const STRING_SCAN_FUNCTIONS = new Set(['format', 'contains', 'startsWith', 'endsWith', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'trim', 'replace', 'split', 'substring', 'charAt', 'reverse', 'join', 'isSorted', 'sum', 'min', 'max', 'url', 'isURL', 'quantity', 'isQuantity']);
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);

function isNode(x: unknown): x is EngineNode {
  return x !== null && typeof x === 'object' && typeof (x as { op?: unknown }).op === 'string' && typeof (x as { meta?: unknown }).meta === 'object';
}

/** The sub-nodes of a node, including a macro's expansion or alternate. */
export function childNodes(node: EngineNode): EngineNode[] {
  const out: EngineNode[] = [];
  const visit = (x: unknown): void => {
    if (isNode(x)) out.push(x);
    else if (Array.isArray(x)) x.forEach(visit);
    else if (x !== null && typeof x === 'object' && !(x instanceof Uint8Array) && x.constructor === Object) Object.values(x).forEach(visit);
  };
  visit(node.args);
  const meta = node.meta as EngineNode['meta'] | undefined;
  if (meta === undefined) return out;
  if (meta.macro !== undefined) out.push(meta.macro);
  if (meta.alternate !== undefined) out.push(meta.alternate);
  return out;
}

/** A slot remembering the last value a node produced, so a call can price its inputs. */
function recordValues(node: EngineNode): { value: unknown } {
  const slot = { value: undefined as unknown };
  const inner = node.evaluate;
  node.evaluate = function recorded(ev, ast, ctx) {
    const v = inner.call(node, ev, ast, ctx);
    slot.value = v;
    return v;
  };
  return slot;
}

function delegate(node: EngineNode): Evaluate {
  return (ev, ast, ctx) => {
    const meta = node.meta;
    if (meta.alternate !== undefined) return meta.alternate.evaluate(ev, meta.alternate, ctx);
    if (meta.macro !== undefined) return meta.macro.evaluate(ev, meta.macro, ctx);
    return meta.evaluate(ev, ast, ctx);
  };
}

function callPricing(node: EngineNode): (() => number) | undefined {
  const [name, receiver, args] = node.args as [string, unknown, unknown];
  if (node.op !== 'rcall' || !isNode(receiver) || !Array.isArray(args)) return undefined;
  if (name === 'check') return () => AUTHZ_CHECK_COST;
  const first = args[0];
  if (REGEX_FUNCTIONS.has(name) && isNode(first)) {
    const input = recordValues(receiver);
    const pattern = recordValues(first);
    return () => regexCost(String(input.value ?? ''), String(pattern.value ?? ''));
  }
  if (STRING_SCAN_FUNCTIONS.has(name)) {
    const input = recordValues(receiver);
    return () => traversalCost(sizeOf(input.value));
  }
  return undefined;
}

/** Wraps every node of a freshly parsed program so evaluation charges the active tracker. */
export function instrument(root: EngineNode): void {
  const seen = new Set<EngineNode>();
  const stack = [root];
  const nodes: EngineNode[] = [];
  while (stack.length > 0) {
    const n = stack.pop() as EngineNode;
    if (seen.has(n)) continue;
    seen.add(n);
    nodes.push(n);
    stack.push(...childNodes(n));
  }
  for (const node of nodes) {
    if ((node.meta as unknown) === undefined) continue;
    if (node.meta.macro !== undefined || FREE_OPS.has(node.op)) {
      node.evaluate = delegate(node);
      continue;
    }
    const base = SELECT_OPS.has(node.op) ? SELECT_AND_IDENT_COST : node.op === 'list' ? LIST_CREATE_BASE_COST : node.op === 'map' ? MAP_CREATE_BASE_COST : 1;
    const inner = delegate(node);
    node.evaluate = node.op === '+'
      ? (ev, ast, ctx) => {
          charge(base);
          const r = inner(ev, ast, ctx);
          if (typeof r === 'string' || Array.isArray(r)) charge(traversalCost(sizeOf(r)));
          return r;
        }
      : (ev, ast, ctx) => {
          charge(base);
          return inner(ev, ast, ctx);
        };
  }
  // Second pass: calls priced by their inputs record those inputs around the already-charging nodes.
  for (const node of nodes) {
    if (node.op !== 'rcall' || (node.meta as unknown) === undefined || node.meta.macro !== undefined) continue;
    const priced = callPricing(node);
    if (priced === undefined) continue;
    const charged = node.evaluate;
    node.evaluate = (ev, ast, ctx) => {
      const r = charged.call(node, ev, ast, ctx);
      charge(priced());
      return r;
    };
  }
}
