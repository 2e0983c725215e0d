/**
 * How the served versions of one CRD reach their storage version, as kube's CR storage codec does
 * it: a stored object is first defaulted by the schema of the version it was stored in, then
 * converted (strategy None rewrites apiVersion; strategy Webhook asks the conversion webhook), then
 * pruned to the target version's schema. Writes in another version than the storage version are
 * converted and pruned to the storage version's schema.
 */
import type { AsyncConversion, KubeObject, ResourceType, StorageConversion } from '../api/types.ts';
import type { Schema } from '../schema/types.ts';
import { pruneUnknownFields } from '../schema/prune.ts';
import { applyDefaults, defaultsWouldChange } from '../schema/defaults.ts';
import { ConversionWebhook } from './conversion-webhook.ts';
import type { ServiceResolver } from '../aggregator/service-resolver.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a schema (or anything below it) has a default. */
function hasDefaults(s: Schema | undefined, seen = new Set<Schema>()): boolean {
  if (!s || seen.has(s)) return false;
  seen.add(s);
  if (s.default !== undefined) return true;
  if (Object.values(s.properties ?? {}).some((p) => hasDefaults(p, seen))) return true;
  if (typeof s.additionalProperties === 'object' && hasDefaults(s.additionalProperties, seen)) return true;
  return hasDefaults(s.items, seen);
}

/**
 * Gives each type of a CRD (one per served version, storage version `storage`) its read
 * defaults and conversion: none for the storage version under strategy None, a synchronous
 * StorageConversion for the others, an AsyncConversion for every version under strategy Webhook.
 */
export function withConversions(crd: KubeObject, types: readonly ResourceType[], storage: string, resolveService?: ServiceResolver): ResourceType[] {
  const spec = isObj(crd.spec) ? crd.spec : {};
  const group = String(spec.group ?? '');
  const conversion = isObj(spec.conversion) ? spec.conversion : {};
  const schemas = new Map(types.map((t) => [t.version, t.schema]));
  const withDefaults = new Set(types.filter((t) => hasDefaults(t.schema)).map((t) => t.version));
  const storageSchema = schemas.get(storage);
  // kube's unstructuredDefaulter: the schema of the version the object is stored in.
  const readDefaults = (obj: KubeObject): KubeObject => {
    const version = typeof obj.apiVersion === 'string' ? obj.apiVersion.slice(obj.apiVersion.indexOf('/') + 1) : storage;
    if (!withDefaults.has(version)) return obj;
    const schema = schemas.get(version);
    // Stored objects are shared: copied only when defaulting changes them.
    return defaultsWouldChange(obj, schema) ? applyDefaults(structuredClone(obj), schema) : obj;
  };
  if (conversion.strategy === 'Webhook' && isObj(conversion.webhook)) {
    const kind = types[0]?.kind ?? '';
    const hook = new ConversionWebhook({ group, kind, webhook: conversion.webhook, resolveService });
    return types.map((rt) => ({ ...rt, readDefaults, asyncConversion: webhookConversion(hook, rt, `${group}/${storage}`, storage, storageSchema, readDefaults) }));
  }
  // The storage version serves objects stored in an earlier storage version with its own apiVersion.
  const readStored = (obj: KubeObject): KubeObject => {
    const defaulted = readDefaults(obj);
    if (defaulted.apiVersion === `${group}/${storage}`) return defaulted;
    const out = defaulted === obj ? structuredClone(obj) : defaulted;
    out.apiVersion = `${group}/${storage}`;
    pruneUnknownFields(out, storageSchema);
    return out;
  };
  return types.map((rt) =>
    rt.version === storage ? { ...rt, readDefaults: readStored } : { ...rt, readDefaults, storageConversion: noneConversion(rt, `${group}/${storage}`, storageSchema, readDefaults) },
  );
}

/** Conversion None: the same object with the apiVersion of the version it is read or written in. */
function noneConversion(rt: ResourceType, storageApiVersion: string, storageSchema: Schema | undefined, readDefaults: (o: KubeObject) => KubeObject): StorageConversion {
  const apiVersion = `${rt.group}/${rt.version}`;
  return {
    // Written in another version: defaulted by that version's schema first (kube defaults a
    // request as it decodes it), then pruned to and defaulted by the storage version's.
    toStorage: (obj) => {
      if (obj.apiVersion === apiVersion) applyDefaults(obj, rt.schema);
      const out = { ...obj, apiVersion: storageApiVersion };
      pruneUnknownFields(out, storageSchema);
      applyDefaults(out, storageSchema);
      return out;
    },
    // Read: defaulted as stored, then pruned to this version (no defaults of this version on read, as kube).
    fromStorage: (obj) => {
      const defaulted = readDefaults(obj);
      const out = defaulted === obj ? structuredClone({ ...obj, apiVersion }) : Object.assign(defaulted, { apiVersion });
      pruneUnknownFields(out, rt.schema);
      return out;
    },
  };
}

function webhookConversion(
  hook: ConversionWebhook,
  rt: ResourceType,
  storageApiVersion: string,
  storage: string,
  storageSchema: Schema | undefined,
  readDefaults: (o: KubeObject) => KubeObject,
): AsyncConversion {
  const apiVersion = `${rt.group}/${rt.version}`;
  return {
    storageVersion: storage,
    async fromStorage(objs) {
      // Several objects go in one review; errors are worded as for one object, as kube's storage
      // decodes (and converts) each object on its own.
      const converted = await hook.convert(objs.map(readDefaults), apiVersion);
      return converted.map((o, i) => {
        if (o === objs[i]) return o;
        pruneUnknownFields(o, rt.schema);
        return o;
      });
    },
    async toStorage(obj) {
      if (obj.apiVersion === storageApiVersion) return obj;
      // Defaulted in the version it was written in, as kube decodes it, before the webhook converts it.
      if (obj.apiVersion === apiVersion) applyDefaults(obj, rt.schema);
      const [out] = await hook.convert([obj], storageApiVersion);
      pruneUnknownFields(out, storageSchema);
      return out!;
    },
  };
}
