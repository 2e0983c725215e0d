// Static worst-case cost of an expression typed against schemas, so a rule that could exceed the
// runtime budget on some object is rejected up front. Sizes come from maxLength, maxItems and
// maxProperties; unbounded sizes from the largest request body kube-apiserver accepts (3 MiB).
import { Environment } from '@marcbachmann/cel-js';
import type { CelType } from './schema-types.ts';
import { rewriteSource } from './source-rewrite.ts';
import { AUTHZ_CHECK_COST, LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, SELECT_AND_IDENT_COST, traversalCost, REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR } from './cost.ts';

export interface CostEstimate {
  readonly kind: 'estimate';
  /** Best-case runtime cost. */
  readonly min: number;
  /** Worst-case runtime cost over every object the schemas admit. */
  readonly max: number;
}

const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
const MACROS = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry']);
const TWO_VARIABLE_MACROS = new Set(['all', 'exists', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);
const STRING_SCANS = new Set(['format', 'contains', 'startsWith', 'endsWith', 'indexOf', 'lastIndexOf', 'lowerAscii', 'upperAscii', 'trim', 'replace', 'split', 'substring', 'charAt', 'reverse', 'url', 'isURL', 'quantity', 'isQuantity']);
const REGEX = new Set(['matches', 'find', 'findAll']);
const parser = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true, homogeneousAggregateLiterals: false });

interface Node {
  readonly op: string;
  readonly args: unknown;
}

function minSerializedSize(t: CelType | undefined): number {
  switch (t?.kind) {
    case 'int': case 'double': case 'bool': return 1;
    default: return 2;
  }
}

function maxCount(t: CelType | undefined): number {
  if (t?.kind === 'list') return t.maxItems ?? Math.floor(MAX_REQUEST_BYTES / (minSerializedSize(t.element) + 1));
  if (t?.kind === 'map') return t.maxProperties ?? Math.floor(MAX_REQUEST_BYTES / (minSerializedSize(t.value) + 2));
  if (t?.kind === 'object') return Object.keys(t.fields).length;
  return Math.floor(MAX_REQUEST_BYTES / 2);
}

function maxLength(t: CelType | undefined): number {
  return t?.kind === 'string' && t.maxLength !== undefined ? t.maxLength : MAX_REQUEST_BYTES;
}

/** The second variable of a two-variable comprehension: the element of a list, the value of a map. */
function valueType(t: CelType | undefined): CelType | undefined {
  if (t?.kind === 'list') return t.element;
  if (t?.kind === 'map') return t.value;
  return undefined;
}

function elementType(t: CelType | undefined): CelType | undefined {
  if (t?.kind === 'list') return t.element;
  if (t?.kind === 'map') return { kind: 'string' };
  return undefined;
}

interface Est {
  readonly cost: number;
  readonly type?: CelType;
  readonly constant?: unknown;
}

function isNode(x: unknown): x is Node {
  return x !== null && typeof x === 'object' && typeof (x as Node).op === 'string';
}

function walk(n: Node, scope: ReadonlyMap<string, CelType>): Est {
  const a = n.args;
  switch (n.op) {
    case 'value':
      return { cost: 0, constant: a };
    case 'id':
      return { cost: SELECT_AND_IDENT_COST, type: scope.get(String(a)) };
    case '.': case '.?': {
      const [obj, field] = a as [Node, string];
      const o = walk(obj, scope);
      const t = o.type;
      const type = t?.kind === 'object' ? t.fields[field] : t?.kind === 'map' ? t.value : undefined;
      return { cost: o.cost + SELECT_AND_IDENT_COST, type };
    }
    case 'list':
      return { cost: LIST_CREATE_BASE_COST + sum(a, scope) };
    case 'map':
      return { cost: MAP_CREATE_BASE_COST + sum(a, scope) };
    case '?:': {
      const [c, t, f] = (a as Node[]).map((x) => walk(x, scope));
      return { cost: (c?.cost ?? 0) + Math.max(t?.cost ?? 0, f?.cost ?? 0) };
    }
    case '&&': case '||':
      return { cost: sum(a, scope) };
    case 'rcall':
      return walkReceiverCall(a as [string, Node, Node[]], scope);
    case 'call': {
      const [name, args] = a as [string, Node[]];
      const ests = args.map((x) => walk(x, scope));
      const extra = STRING_SCANS.has(name) ? traversalCost(maxLength(ests[0]?.type)) : 0;
      return { cost: 1 + extra + ests.reduce((s, e) => s + e.cost, 0) };
    }
    default: {
      const ests = (Array.isArray(a) ? a : [a]).filter(isNode).map((x) => walk(x, scope));
      const base = ests.reduce((s, e) => s + e.cost, 0) + 1;
      if (n.op === 'in') return { cost: base + maxCount(ests[1]?.type) };
      return { cost: base };
    }
  }
}

function sum(a: unknown, scope: ReadonlyMap<string, CelType>): number {
  const list = Array.isArray(a) ? a.flat() : [];
  return list.filter(isNode).reduce((s, x) => s + walk(x, scope).cost, 0);
}

function walkReceiverCall([name, receiver, args]: [string, Node, Node[]], scope: ReadonlyMap<string, CelType>): Est {
  const r = walk(receiver, scope);
  if (MACROS.has(name) && args.length >= 2 && args[0]?.op === 'id') {
    const inner = new Map(scope);
    const twoVariables = TWO_VARIABLE_MACROS.has(name) && args.length >= 3 && args[1]?.op === 'id';
    const bindings: Array<[Node, CelType | undefined]> = twoVariables
      ? [[args[0], r.type?.kind === 'list' ? { kind: 'int' } : elementType(r.type)], [args[1] as Node, valueType(r.type)]]
      : [[args[0], elementType(r.type)]];
    for (const [v, t] of bindings) {
      if (t !== undefined) inner.set(String(v.args), t);
      else inner.delete(String(v.args));
    }
    const perItem = args.slice(bindings.length).reduce((s, x) => s + walk(x, inner).cost, 0);
    // Each iteration also reads the accumulator and the iteration variable, as cel-go's expansion does.
    return { cost: r.cost + maxCount(r.type) * (perItem + 2) };
  }
  const ests = args.map((x) => walk(x, scope));
  let extra = 0;
  if (name === 'check') extra = AUTHZ_CHECK_COST;
  else if (REGEX.has(name)) {
    const pattern = typeof ests[0]?.constant === 'string' ? ests[0].constant.length : maxLength(ests[0]?.type);
    extra = Math.ceil((1 + maxLength(r.type)) * STRING_TRAVERSAL_FACTOR) * Math.ceil(pattern * REGEX_LENGTH_FACTOR);
  } else if (STRING_SCANS.has(name)) extra = traversalCost(maxLength(r.type));
  return { cost: 1 + extra + r.cost + ests.reduce((s, e) => s + e.cost, 0) };
}

/** Estimates the worst-case runtime cost of an expression whose variables have the given types. */
export function estimateCost(expression: string, variables: Readonly<Record<string, CelType>>, _env?: unknown): CostEstimate | { kind: 'compileError'; message: string } {
  let ast: Node;
  try {
    ast = parser.parse(rewriteSource(expression)).ast as unknown as Node;
  } catch (error) {
    return { kind: 'compileError', message: error instanceof Error ? error.message : String(error) };
  }
  const max = walk(ast, new Map(Object.entries(variables))).cost;
  return { kind: 'estimate', min: max, max };
}
