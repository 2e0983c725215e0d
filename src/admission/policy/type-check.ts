/**
 * Static type checking of a policy's expressions against the schemas of the kinds its
 * matchConstraints name (kube's validatingadmissionpolicy TypeChecker, whose results the status
 * controller writes to `status.typeChecking`).
 *
 * The expression engine types `object` as dyn, so the check here is the part of cel-go's that
 * policies trip over: a field selected from `object`, `oldObject` or `params` that the kind's
 * schema does not have ("undefined field"), reported in cel-go's error format.
 */
import type { Schema } from '../../schema/types.ts';
import { unescapePropertyName } from '../../cel/index.ts';
import type { CompiledPolicy } from './compiled.ts';

/** The checked program's nodes as the engine builds them (`op`, `args`, the source offset `pos`). */
interface EngineNode {
  readonly op: string;
  readonly args: unknown;
}

/** A kind a policy's rules name, with its schema. */
export interface CheckedKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly schema: Schema;
}

export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

/** kube checks at most this many kinds per policy. */
const MAX_TYPES_TO_CHECK = 10;

/** kube's typesToCheck: every group × version × resource of the rules, none when any names a wildcard. */
export function kindsToCheck(resourceRules: readonly Record<string, unknown>[], resolve: (group: string, version: string, resource: string) => CheckedKind | undefined): CheckedKind[] {
  const found = new Map<string, CheckedKind>();
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  for (const rule of resourceRules) {
    const groups = strings(rule.apiGroups);
    const versions = strings(rule.apiVersions);
    const resources = strings(rule.resources).filter((r) => !r.includes('/'));
    if ([...groups, ...versions, ...resources].some((x) => x.includes('*'))) continue;
    for (const g of [...groups].sort()) {
      for (const v of [...versions].sort()) {
        for (const r of [...resources].sort()) {
          const k = resolve(g, v, r);
          if (k === undefined) continue;
          found.set(`${k.group}/${k.version}/${k.kind}`, k);
          if (found.size === MAX_TYPES_TO_CHECK) return sortKinds([...found.values()]);
        }
      }
    }
  }
  return sortKinds([...found.values()]);
}

function sortKinds(kinds: CheckedKind[]): CheckedKind[] {
  return kinds.sort((a, b) => (a.group !== b.group ? (a.group < b.group ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : a.kind < b.kind ? -1 : 1));
}

/** A schema's child for a field, `'any'` when the schema does not constrain it, `undefined` when the field does not exist. */
function fieldOf(schema: Schema | 'any', field: string): Schema | 'any' | undefined {
  if (schema === 'any') return 'any';
  if (schema['x-kubernetes-preserve-unknown-fields'] === true || schema['x-kubernetes-int-or-string'] === true) return 'any';
  if (schema.properties !== undefined) {
    const child = schema.properties[unescapePropertyName(field)];
    if (child !== undefined) return child;
    return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : schema.additionalProperties === true ? 'any' : undefined;
  }
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties;
  return 'any';
}

function elementOf(schema: Schema | 'any'): Schema | 'any' {
  if (schema === 'any') return 'any';
  if (schema.items !== undefined) return schema.items;
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties;
  return 'any';
}

interface Issue {
  readonly offset: number;
  readonly message: string;
}

/** The undefined-field issues of one program, given the schemas of its typed roots. */
function issuesOf(root: EngineNode, roots: Readonly<Record<string, Schema>>): Issue[] {
  const issues: Issue[] = [];
  const typeOf = (node: EngineNode): Schema | 'any' | undefined => {
    const args = node.args as unknown;
    if (node.op === 'id') return typeof args === 'string' ? roots[args] : undefined;
    if ((node.op === '.' || node.op === '.?') && Array.isArray(args)) {
      const [inner, field] = args as [EngineNode, string];
      const parent = typeOf(inner);
      if (parent === undefined) return undefined;
      const child = fieldOf(parent, field);
      if (child === undefined) {
        // cel-go places the error at the select's dot.
        const pos = (node as unknown as { pos: number }).pos;
        issues.push({ offset: pos - (node.op === '.?' ? 2 : 1), message: `undefined field '${field}'` });
        return undefined;
      }
      return child;
    }
    if ((node.op === '[]' || node.op === '[?]') && Array.isArray(args)) {
      const parent = typeOf(args[0] as EngineNode);
      return parent === undefined ? undefined : elementOf(parent);
    }
    return undefined;
  };
  const visit = (node: EngineNode): void => {
    if (node.op === '.' || node.op === '.?' || node.op === '[]' || node.op === '[?]') {
      // The whole chain is resolved from its outermost select; inner selects are not visited twice.
      typeOf(node);
      const args = node.args as unknown[];
      for (const a of args.slice(1)) if (isNode(a)) visit(a);
      let inner = args[0];
      while (isNode(inner) && (inner.op === '.' || inner.op === '.?' || inner.op === '[]' || inner.op === '[?]')) {
        for (const a of (inner.args as unknown[]).slice(1)) if (isNode(a)) visit(a);
        inner = (inner.args as unknown[])[0];
      }
      if (isNode(inner)) visit(inner);
      return;
    }
    const args = node.args as unknown;
    const each = (x: unknown): void => {
      if (isNode(x)) visit(x);
      else if (Array.isArray(x)) x.forEach(each);
    };
    each(args);
  };
  visit(root);
  return issues.sort((a, b) => a.offset - b.offset);
}

function isNode(x: unknown): x is EngineNode {
  return x !== null && typeof x === 'object' && typeof (x as { op?: unknown }).op === 'string';
}

/** cel-go's Issues text: each error as `ERROR: <input>:line:col: msg`, the source line, and a caret. */
function formatIssues(expression: string, issues: readonly Issue[]): string {
  return issues
    .map((i) => {
      const before = expression.slice(0, i.offset);
      const line = before.split('\n').length;
      const column = i.offset - before.lastIndexOf('\n');
      const text = expression.split('\n')[line - 1] ?? '';
      return `ERROR: <input>:${line}:${column}: ${i.message}\n | ${text}\n | ${'.'.repeat(Math.max(0, column - 1))}^`;
    })
    .join('\n');
}

function gvkString(k: CheckedKind): string {
  return `${k.group}/${k.version}, Kind=${k.kind}`;
}

/**
 * The warnings kube's type checker writes for a policy: per validation expression and message
 * expression, the issues against each kind (`<gvk>: <issues>` lines).
 */
export function typeCheckPolicy(policy: CompiledPolicy, kinds: readonly CheckedKind[], paramSchema: Schema | undefined): ExpressionWarning[] {
  if (kinds.length === 0) return [];
  const warnings: ExpressionWarning[] = [];
  const check = (fieldRef: string, entry: CompiledPolicy['validations'][number] | undefined) => {
    if (entry === undefined || !entry.compiled.ok) return;
    const program = entry.compiled.program;
    const results: string[] = [];
    for (const k of kinds) {
      const roots: Record<string, Schema> = { object: k.schema, oldObject: k.schema };
      if (paramSchema !== undefined) roots.params = paramSchema;
      const issues = issuesOf(program.ast as unknown as EngineNode, roots);
      if (issues.length > 0) results.push(`${gvkString(k)}: ${formatIssues(entry.expression, issues)}\n`);
    }
    if (results.length > 0) warnings.push({ fieldRef, warning: results.join('\n') });
  };
  policy.validations.forEach((v, i) => {
    check(`spec.validations[${i}].expression`, v);
    if (v.messageExpression !== undefined) check(`spec.validations[${i}].messageExpression`, { ...v, ...v.messageExpression });
  });
  return warnings;
}
