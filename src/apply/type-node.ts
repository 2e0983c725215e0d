/**
 * How server-side apply sees a schema: scalars, maps (structs with declared fields and/or
 * free-form keys; granular or atomic) and lists (atomic, set, or map keyed by fields), read
 * from the `x-kubernetes-*` markers the way kube's OpenAPI-to-structured-merge-diff
 * conversion does. A missing schema is "untyped": maps granular, lists atomic.
 */
import type { Schema } from '../schema/types.ts';

export type TypeNode = ScalarNode | MapNode | ListNode | UntypedNode;

export interface ScalarNode {
  readonly kind: 'scalar';
}

/** Decided by the value: maps granular with undeclared keys, lists atomic, others scalar. */
export interface UntypedNode {
  readonly kind: 'untyped';
}

export interface MapNode {
  readonly kind: 'map';
  readonly atomic: boolean;
  /** The declared field's type, or undefined when `name` is not a declared field. */
  field(name: string): TypeNode | undefined;
  /** The type of keys that are not declared fields. */
  readonly elem: TypeNode;
}

export interface ListNode {
  readonly kind: 'list';
  readonly listType: 'atomic' | 'set' | 'map';
  readonly keys: readonly string[];
  /** Defaults of key fields, used when an entry omits a key. */
  readonly keyDefaults: ReadonlyMap<string, unknown>;
  readonly item: TypeNode;
}

export const SCALAR: ScalarNode = { kind: 'scalar' };
export const UNTYPED: UntypedNode = { kind: 'untyped' };
const UNTYPED_MAP: MapNode = { kind: 'map', atomic: false, field: () => undefined, elem: UNTYPED };
const ATOMIC_LIST: ListNode = { kind: 'list', listType: 'atomic', keys: [], keyDefaults: new Map(), item: UNTYPED };

const cache = new WeakMap<Schema, TypeNode>();

/** The apply type of a schema (cached per schema object). */
export function typeOf(schema: Schema | undefined): TypeNode {
  if (!schema) return UNTYPED;
  let t = cache.get(schema);
  if (!t) {
    t = build(schema);
    cache.set(schema, t);
  }
  return t;
}

function build(s: Schema): TypeNode {
  const isObject = s.type === 'object' || (!s.type && (s.properties !== undefined || s.additionalProperties !== undefined));
  const isArray = s.type === 'array' || (!s.type && s.items !== undefined);
  if (s['x-kubernetes-int-or-string']) return SCALAR;
  if (isObject) return buildMap(s);
  if (isArray) return buildList(s);
  if (s.type) return SCALAR;
  if (s['x-kubernetes-preserve-unknown-fields']) return UNTYPED;
  return UNTYPED;
}

function buildMap(s: Schema): MapNode {
  const props = s.properties;
  const ap = s.additionalProperties;
  let elem: TypeNode;
  if (ap && typeof ap === 'object') elem = typeOf(ap);
  else if (ap === true || s['x-kubernetes-preserve-unknown-fields'] || (!props && ap === undefined)) elem = UNTYPED;
  else elem = UNTYPED;
  const fieldTypes = new Map<string, TypeNode>();
  return {
    kind: 'map',
    atomic: s['x-kubernetes-map-type'] === 'atomic',
    field(name) {
      if (!props || !Object.prototype.hasOwnProperty.call(props, name)) return undefined;
      let t = fieldTypes.get(name);
      if (!t) {
        t = typeOf(props[name]);
        fieldTypes.set(name, t);
      }
      return t;
    },
    get elem() {
      return elem;
    },
  };
}

function buildList(s: Schema): ListNode {
  const item = typeOf(s.items);
  let listType = s['x-kubernetes-list-type'];
  let keys: readonly string[] = s['x-kubernetes-list-map-keys'] ?? [];
  if (!listType) {
    // Without a list type, the strategic-merge markers decide, as kube's schema conversion does.
    const strategy = s['x-kubernetes-patch-strategy'] ?? '';
    const mergeKey = s['x-kubernetes-patch-merge-key'];
    if (strategy.split(',').includes('merge')) {
      if (mergeKey) {
        listType = 'map';
        keys = [mergeKey];
      } else {
        listType = 'set';
      }
    } else {
      listType = 'atomic';
    }
  }
  if (listType === 'map' && keys.length === 0) listType = 'atomic';
  const keyDefaults = new Map<string, unknown>();
  for (const k of keys) {
    const d = s.items?.properties?.[k]?.default;
    if (d !== undefined) keyDefaults.set(k, d);
  }
  return { kind: 'list', listType, keys, keyDefaults, item };
}

/** The type actually used for a value: untyped nodes resolve by the value's shape. */
export function resolve(t: TypeNode, value: unknown): TypeNode {
  if (t.kind !== 'untyped') return t;
  if (Array.isArray(value)) return ATOMIC_LIST;
  if (isPlainObject(value)) return UNTYPED_MAP;
  return SCALAR;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const str: Schema = { type: 'string' };
const stringMap: Schema = { type: 'object', additionalProperties: str };

/** ObjectMeta as kube publishes it: ownerReferences a list-map by uid of atomic structs, finalizers a set. */
export const OBJECT_META_SCHEMA: Schema = {
  type: 'object',
  properties: {
    name: str,
    generateName: str,
    namespace: str,
    selfLink: str,
    uid: str,
    resourceVersion: str,
    generation: { type: 'integer' },
    creationTimestamp: str,
    deletionTimestamp: str,
    deletionGracePeriodSeconds: { type: 'integer' },
    labels: stringMap,
    annotations: stringMap,
    ownerReferences: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
      'x-kubernetes-patch-merge-key': 'uid',
      'x-kubernetes-patch-strategy': 'merge',
      items: {
        type: 'object',
        'x-kubernetes-map-type': 'atomic',
        // Non-pointer strings of the Go type: kube's OpenAPI defaults them to "", so an entry
        // without its uid key is keyed by "" (and left to validation) rather than refused.
        properties: {
          apiVersion: { ...str, default: '' },
          kind: { ...str, default: '' },
          name: { ...str, default: '' },
          uid: { ...str, default: '' },
          controller: { type: 'boolean' },
          blockOwnerDeletion: { type: 'boolean' },
        },
      },
    },
    finalizers: { type: 'array', 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge', items: str },
    managedFields: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'object', additionalProperties: true } },
  },
};

const rootCache = new WeakMap<Schema, MapNode>();
const UNTYPED_ROOT: MapNode = rootFor(undefined);

/** The type of a whole object: the kind's schema with `metadata` always read as ObjectMeta. */
export function rootType(schema: Schema | undefined): MapNode {
  if (!schema) return UNTYPED_ROOT;
  let r = rootCache.get(schema);
  if (!r) {
    r = rootFor(schema);
    rootCache.set(schema, r);
  }
  return r;
}

function rootFor(schema: Schema | undefined): MapNode {
  const base = schema ? typeOf(schema) : UNTYPED_MAP;
  const baseMap = base.kind === 'map' ? base : UNTYPED_MAP;
  const meta = typeOf(OBJECT_META_SCHEMA);
  return {
    kind: 'map',
    atomic: false,
    field: (name) => (name === 'metadata' ? meta : baseMap.field(name)),
    elem: baseMap.elem,
  };
}
