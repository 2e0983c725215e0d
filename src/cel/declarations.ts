// Variable declarations: the CEL type of each variable an expression may name, written as CEL
// type names ("int", "list(string)", "map(string, int)", "optional(int)") or derived from a schema.
import type { CelType } from './schema-types.ts';

/** A declared variable: its CEL type ('dyn' when anything may be bound). */
export interface VariableDeclaration {
  readonly type: 'dyn' | CelType;
}

const SCALARS: Readonly<Record<string, CelType>> = {
  int: { kind: 'int' }, uint: { kind: 'uint' }, double: { kind: 'double' }, string: { kind: 'string' }, bool: { kind: 'bool' },
  bytes: { kind: 'bytes' }, dyn: { kind: 'dyn' }, null: { kind: 'null' }, timestamp: { kind: 'timestamp' }, duration: { kind: 'duration' },
  'google.protobuf.Timestamp': { kind: 'timestamp' }, 'google.protobuf.Duration': { kind: 'duration' },
};

/** Parses a CEL type name; throws on text that is not one. */
export function parseTypeName(text: string): CelType {
  let pos = 0;
  const skip = () => {
    while (text[pos] === ' ') pos++;
  };
  const expect = (c: string) => {
    skip();
    if (text[pos] !== c) throw new Error(`type ${JSON.stringify(text)}: expected '${c}' at ${pos}`);
    pos++;
  };
  const parse = (): CelType => {
    skip();
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(pos));
    if (m === null) throw new Error(`type ${JSON.stringify(text)}: expected a name at ${pos}`);
    pos += m[0].length;
    const name = m[0];
    if (name === 'list' || name === 'optional') {
      expect('(');
      const element = parse();
      expect(')');
      return name === 'list' ? { kind: 'list', element, listType: 'atomic' } : { kind: 'optional', element };
    }
    if (name === 'map') {
      expect('(');
      const key = parse();
      expect(',');
      const value = parse();
      expect(')');
      return { kind: 'map', key, value };
    }
    const scalar = SCALARS[name];
    if (scalar === undefined) throw new Error(`type ${JSON.stringify(text)}: unknown type ${name}`);
    return scalar;
  };
  const t = parse();
  skip();
  if (pos !== text.length) throw new Error(`type ${JSON.stringify(text)}: trailing text at ${pos}`);
  return t;
}

/**
 * The engine's name for a declared type. Schema-derived objects stay dyn: their fields are checked
 * against the schema by the engine only as map entries.
 */
export function engineTypeName(t: CelType): string {
  switch (t.kind) {
    case 'int': case 'uint': case 'double': case 'string': case 'bool': case 'bytes': case 'dyn':
      return t.kind;
    case 'null': return 'null';
    case 'timestamp': return 'google.protobuf.Timestamp';
    case 'duration': return 'google.protobuf.Duration';
    case 'list': return `list<${engineTypeName(t.element)}>`;
    case 'optional': return `optional<${engineTypeName(t.element)}>`;
    case 'map': return t.key === undefined ? 'dyn' : `map<${engineTypeName(t.key)}, ${engineTypeName(t.value)}>`;
    default: return 'dyn';
  }
}
