/**
 * Field references in a checked program: which fields selected from typed roots (`object` with
 * its kind's schema, `variables` with the declared names) do not exist, and cel-go's text for
 * such errors. Used by the policy type checker and by compilation (undeclared variables).
 */
import type { Schema } from '../../schema/types.ts';
import { unescapePropertyName } from '../../cel/index.ts';

/** The checked program's nodes as the engine builds them (`op`, `args`, the source offset `pos`). */
export interface EngineNode {
  readonly op: string;
  readonly args: unknown;
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

export interface Issue {
  readonly offset: number;
  readonly message: string;
}

/** The undefined-field issues of one program, given the schemas of its typed roots. */
export function undefinedFields(root: EngineNode, roots: Readonly<Record<string, Schema>>): Issue[] {
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
export function formatIssues(expression: string, issues: readonly Issue[]): string {
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
