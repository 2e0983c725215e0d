/**
 * The message table and the kind table, looked up by name and by (apiVersion, kind).
 */
import { META_MESSAGES } from './schema-meta.ts';
import { ANY_VERSION_KINDS, KIND_MESSAGES, KINDS } from './schema-kinds.ts';
import { APIEXTENSIONS_ADAPTERS } from './schema-apiextensions.ts';
import type { JsonAdapter, MessageDef } from './schema-types.ts';

const MESSAGES: ReadonlyMap<string, MessageDef> = new Map([...META_MESSAGES, ...KIND_MESSAGES].map((m) => [m.name, m]));

const KIND_TO_MESSAGE: ReadonlyMap<string, string> = new Map(KINDS.map((k) => [`${k.apiVersion}\u0000${k.kind}`, k.message]));

const ADAPTERS: ReadonlyMap<string, JsonAdapter> = APIEXTENSIONS_ADAPTERS;

/** The message definition by name; throws for a name the tables do not hold (a programming error). */
export function lookupMessage(name: string): MessageDef {
  const def = MESSAGES.get(name);
  if (!def) throw new Error(`protobuf schema has no message ${name}`);
  return def;
}

/** How a message's JSON differs from an object of its fields, for the few Go types with their own MarshalJSON. */
export function jsonAdapterOf(name: string): JsonAdapter | undefined {
  return ADAPTERS.get(name);
}

/** The message that carries (apiVersion, kind), or undefined when we do not serve it in protobuf. */
export function messageForKind(apiVersion: string, kind: string): string | undefined {
  return KIND_TO_MESSAGE.get(`${apiVersion}\u0000${kind}`) ?? ANY_VERSION_KINDS.get(kind);
}
