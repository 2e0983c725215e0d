/**
 * Field references in a checked program: which fields selected from typed roots (`object` with
 * its kind's schema, `variables` with the declared names) do not exist, and cel-go's text for
 * such errors. Used by the policy type checker and by compilation (undeclared variables).
 */
import type { Schema } from '../../schema/types.ts';
import { unescapePropertyName, type FieldPath } from '../../cel/index.ts';

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

/** The undefined-field issues of one program (its field paths), given the schemas of its typed roots. */
export function undefinedFields(paths: readonly FieldPath[], roots: Readonly<Record<string, Schema>>): Issue[] {
  const issues: Issue[] = [];
  for (const path of paths) {
    let schema: Schema | 'any' | undefined = roots[path.variable];
    for (const step of path.steps) {
      if (schema === undefined) break;
      if (step.kind === 'index') {
        schema = elementOf(schema);
        continue;
      }
      const child = fieldOf(schema, step.name);
      if (child === undefined) issues.push({ offset: step.offset, message: `undefined field '${step.name}'` });
      schema = child;
    }
  }
  return issues.sort((a, b) => a.offset - b.offset);
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
