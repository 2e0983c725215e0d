// Reads the cel-spec conformance data (simple tests, as serialized JSON in @bufbuild/cel-spec) into
// plain cases, and decides which cases do not apply to a JSON API's expression environment.

/** A conformance value reduced to what a JSON-facing CEL environment can hold. */
export type ConfValue =
  | { readonly kind: 'int'; readonly value: string }
  | { readonly kind: 'uint'; readonly value: string }
  | { readonly kind: 'double'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'bytes'; readonly value: Uint8Array }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'null' }
  | { readonly kind: 'list'; readonly value: readonly ConfValue[] }
  | { readonly kind: 'map'; readonly value: ReadonlyArray<readonly [ConfValue, ConfValue]> }
  | { readonly kind: 'type'; readonly value: string };

export interface ConformanceCase {
  readonly id: string;
  readonly expr: string;
  readonly bindings: Readonly<Record<string, ConfValue>>;
  readonly expect: { readonly kind: 'value'; readonly value: ConfValue } | { readonly kind: 'error' };
}

export interface SkippedCase {
  readonly id: string;
  readonly reason: string;
}

/**
 * Whole sections that do not apply, with the reason. Everything else runs.
 * Kubernetes' environment (apiserver/pkg/cel/environment/base.go) has no protobuf message
 * types, no math/encoders/block extensions, and resolves no proto package containers.
 */
export const SKIPPED_SECTIONS: Readonly<Record<string, string>> = {
  proto2: 'protobuf message types (TestAllTypes); a JSON API has no proto messages',
  proto2_ext: 'protobuf extensions; a JSON API has no proto messages',
  proto3: 'protobuf message types (TestAllTypes); a JSON API has no proto messages',
  wrappers: 'protobuf wrapper types (google.protobuf.*Value); values from JSON are never wrapped',
  enums: 'protobuf enums; a JSON API has no proto enums',
  dynamic: 'protobuf well-known types (Struct, Value, Any) converted to CEL values',
  block_ext: 'cel.block is an optimizer extension, not in the Kubernetes environment',
  math_ext: 'math.* extension is not in the Kubernetes environment libraries SPEC.md lists',
  encoders_ext: 'base64 encoders extension is not in the Kubernetes environment libraries SPEC.md lists',
  type_deductions: 'type-checker deductions (checkOnly/typedResult), not evaluation results',
  namespace: 'container (proto package) name resolution; Kubernetes sets no container',
};

/**
 * Single cases that assert how an ill-typed expression evaluates with the type checker switched
 * off (disableCheck). Kubernetes compiles every expression with the checker, so each of these is a
 * compile error there and the asserted runtime value cannot arise.
 */
const UNCHECKED_ILL_TYPED: Readonly<Record<string, string>> = {
  'basic/variables/unbound_is_runtime_error': 'an undeclared variable',
  'basic/functions/unbound_is_runtime_error': 'an undeclared function',
  'logic/conditional/mixed_type': 'ternary branches of different types',
  'comparisons/eq_literal/not_eq_list_length': 'equality of lists with different element types',
  'comparisons/eq_literal/eq_list_elem_mixed_types': 'equality of lists with different element types',
  'logic/AND/short_circuit_type_left': 'a non-bool operand of &&',
  'logic/AND/short_circuit_type_right': 'a non-bool operand of &&',
  'logic/OR/short_circuit_type_left': 'a non-bool operand of ||',
  'logic/OR/short_circuit_type_right': 'a non-bool operand of ||',
};

/** Patterns in an expression or binding that mean the case needs protobuf messages. */
const PROTO_MARKERS = /TestAllTypes|NestedTestAllTypes|google\.protobuf|cel\.expr\.conformance|\.proto[23]\b|TestRequired|GlobalEnum/;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function base64(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, 'base64'));
}

/** Converts a cel.expr.Value in protobuf JSON; returns undefined for message (object) values. */
export function fromValueJson(v: { [k: string]: Json }): ConfValue | undefined {
  if ('int64Value' in v) return { kind: 'int', value: String(v.int64Value) };
  if ('uint64Value' in v) return { kind: 'uint', value: String(v.uint64Value) };
  if ('doubleValue' in v) return { kind: 'double', value: Number(v.doubleValue) };
  if ('stringValue' in v) return { kind: 'string', value: String(v.stringValue) };
  if ('bytesValue' in v) return { kind: 'bytes', value: base64(String(v.bytesValue)) };
  if ('boolValue' in v) return { kind: 'bool', value: Boolean(v.boolValue) };
  if ('nullValue' in v) return { kind: 'null' };
  if ('typeValue' in v) return { kind: 'type', value: String(v.typeValue) };
  if ('listValue' in v) {
    const values = ((v.listValue as { values?: Json[] }).values ?? []).map((x) => fromValueJson(x as { [k: string]: Json }));
    return values.every((x) => x !== undefined) ? { kind: 'list', value: values as ConfValue[] } : undefined;
  }
  if ('mapValue' in v) {
    const entries = ((v.mapValue as { entries?: Json[] }).entries ?? []).map((e) => {
      const { key, value } = e as { key: { [k: string]: Json }; value: { [k: string]: Json } };
      return [fromValueJson(key), fromValueJson(value)] as const;
    });
    if (entries.some(([k, x]) => k === undefined || x === undefined)) return undefined;
    return { kind: 'map', value: entries as Array<readonly [ConfValue, ConfValue]> };
  }
  return undefined;
}

/** The canonical text of an expected value, matching the canonical form adapters produce. */
export function canonicalExpected(v: ConfValue): string {
  switch (v.kind) {
    case 'int': return `i:${v.value}`;
    case 'uint': return `u:${v.value}`;
    case 'double': return Number.isNaN(v.value) ? 'd:NaN' : `d:${Object.is(v.value, -0) ? 0 : v.value}`;
    case 'string': return `s:${JSON.stringify(v.value)}`;
    case 'bytes': return `y:${Buffer.from(v.value).toString('hex')}`;
    case 'bool': return `b:${v.value}`;
    case 'null': return 'n';
    case 'type': return `t:${v.value}`;
    case 'list': return `l:[${v.value.map(canonicalExpected).join(',')}]`;
    case 'map': return `m:{${v.value.map(([k, x]) => `${canonicalExpected(k)}=${canonicalExpected(x)}`).sort().join(',')}}`;
  }
}

interface SerializedSuite {
  readonly name: string;
  readonly suites?: readonly SerializedSuite[];
  readonly tests?: ReadonlyArray<{ readonly original: { [k: string]: Json } }>;
}

/** Flattens the serialized suite into cases to run and cases skipped, each with a reason. */
export function collectConformanceCases(root: SerializedSuite): { run: ConformanceCase[]; skipped: SkippedCase[] } {
  const run: ConformanceCase[] = [];
  const skipped: SkippedCase[] = [];
  const walk = (s: SerializedSuite, path: readonly string[]): void => {
    for (const t of s.tests ?? []) {
      const o = t.original;
      const id = [...path, String(o.name ?? o.expr)].join('/');
      const reason = skipReason(path[0] ?? '', o, id);
      if (reason !== undefined) {
        skipped.push({ id, reason });
        continue;
      }
      const bindings: Record<string, ConfValue> = {};
      let bad = false;
      for (const [name, b] of Object.entries((o.bindings ?? {}) as { [k: string]: { value?: { [k: string]: Json } } })) {
        const cv = b.value === undefined ? undefined : fromValueJson(b.value);
        if (cv === undefined) bad = true;
        else bindings[name] = cv;
      }
      // cel-spec SimpleTest: a case with no result matcher expects the bool value true.
      const resultJson = o.value ?? (o.evalError === undefined && o.anyEvalErrors === undefined ? { boolValue: true } : undefined);
      const expected = resultJson === undefined ? undefined : fromValueJson(resultJson as { [k: string]: Json });
      if (bad || (resultJson !== undefined && expected === undefined)) {
        skipped.push({ id, reason: 'binding or result is a protobuf message (Timestamp/Duration/Any as a message value)' });
        continue;
      }
      const expect = expected !== undefined ? { kind: 'value' as const, value: expected } : { kind: 'error' as const };
      run.push({ id, expr: String(o.expr), bindings, expect });
    }
    for (const c of s.suites ?? []) walk(c, [...path, c.name]);
  };
  for (const c of root.suites ?? []) walk(c, [c.name]);
  return { run, skipped };
}

function skipReason(section: string, o: { [k: string]: Json }, id: string): string | undefined {
  const sectionReason = SKIPPED_SECTIONS[section];
  if (sectionReason !== undefined) return sectionReason;
  const illTyped = UNCHECKED_ILL_TYPED[id];
  if (illTyped !== undefined && o.disableCheck === true) return `unchecked evaluation of an ill-typed expression (${illTyped}); Kubernetes always type-checks, making it a compile error`;
  if (id.startsWith('parse/receiver_function_names/') && o.disableCheck === true) {
    return 'unchecked evaluation of a method call on an undeclared variable; Kubernetes always type-checks, making it a compile error';
  }
  const declared = [...Object.keys((o.bindings ?? {}) as object), ...((o.typeEnv ?? []) as Array<{ name?: string }>).map((d) => d.name ?? '')];
  if (declared.some((n) => n.includes('.'))) return 'declares variables with qualified (dotted) names; Kubernetes declares only simple identifiers';
  if (o.checkOnly === true) return 'check-only case: asserts a type-checker outcome, not an evaluation';
  if (o.unknown !== undefined || o.anyUnknowns !== undefined || o.typedResult !== undefined) return 'expects an unknown set or a typed result, not a value or error';
  const text = JSON.stringify([o.expr, o.bindings ?? null, o.typeEnv ?? null, o.container ?? null]);
  if (PROTO_MARKERS.test(text)) return 'uses protobuf messages or a proto package container';
  return undefined;
}
