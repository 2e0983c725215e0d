/**
 * A structural OpenAPI v3 schema with the Kubernetes `x-kubernetes-*` markers: the one
 * description of a kind from which validation, pruning, defaulting, strategic-merge keys,
 * server-side-apply list/map types, CEL typing, Table columns and /openapi come.
 */
/**
 * Marks a string schema as Go's metav1.Time or metav1.MicroTime in a built-in kind, so that
 * values are decoded and re-encoded as Go does (go-values.ts). A symbol: it is never published.
 */
export const goTimeLayout: unique symbol = Symbol('goTimeLayout');

export interface Schema {
  readonly [goTimeLayout]?: 'Time' | 'MicroTime';
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly format?: string;
  readonly description?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly nullable?: boolean;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly maximum?: number;
  readonly minimum?: number;
  readonly exclusiveMaximum?: boolean;
  readonly exclusiveMinimum?: boolean;
  readonly multipleOf?: number;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly uniqueItems?: boolean;
  readonly maxProperties?: number;
  readonly minProperties?: number;
  readonly allOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly not?: Schema;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** Strategic merge patch: the key that identifies list entries. */
  readonly 'x-kubernetes-patch-merge-key'?: string;
  /** Strategic merge patch: `merge`, `replace`, `retainKeys` or `merge,retainKeys`. */
  readonly 'x-kubernetes-patch-strategy'?: string;
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
}

export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}
