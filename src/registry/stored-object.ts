/**
 * Objects as the store keeps them: JSON bytes without resourceVersion (the revision is the
 * resourceVersion), decoded with the revision stamped back in, and wrapped as cache-like entries.
 */
import type { KeyValue } from '../storage/types.ts';
import { StorageError } from '../storage/types.ts';
import type { CachedEntry } from '../storage/watch-cache.ts';
import type { KubeObject } from '../api/types.ts';
import { canonicalKeyOrder, metaOf, orderedMeta } from './object-meta.ts';

/** A decoded object plus its memoized encodings; lists and gets return these. */
export type Entry = Pick<CachedEntry<KubeObject>, 'key' | 'value' | 'modRevision' | 'createRevision' | 'encode'>;

/** Stored bytes never carry the resourceVersion: it is the revision the store assigns. */
export function encodeForStorage(obj: KubeObject): Uint8Array {
  canonicalKeyOrder(obj);
  const meta = obj.metadata;
  if (!meta) return Buffer.from(JSON.stringify(obj));
  const { resourceVersion: _rv, ...rest } = meta;
  return Buffer.from(JSON.stringify({ ...obj, metadata: orderedMeta(rest) }));
}

/** Decodes stored bytes and stamps the revision as resourceVersion; throws Corrupt on bad bytes. */
export function decodeStored(kv: KeyValue): KubeObject {
  let obj: unknown;
  try {
    obj = JSON.parse(Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength).toString('utf8'));
  } catch (err) {
    throw new StorageError('Corrupt', `data at key ${kv.key} is not valid JSON: ${(err as Error).message}`, kv.key);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new StorageError('Corrupt', `data at key ${kv.key} is not an object`, kv.key);
  }
  const o = obj as KubeObject;
  o.metadata = orderedMeta(metaOf(o), { resourceVersion: String(kv.modRevision) });
  return o;
}

/** An entry read from the store rather than the cache: same interface, memoized locally. */
export function detachedEntry(kv: KeyValue): Entry {
  let value: KubeObject | undefined;
  let corrupt: StorageError | undefined;
  try {
    value = decodeStored(kv);
  } catch (err) {
    corrupt = err as StorageError;
  }
  const memo = new Map<string, Uint8Array>();
  return {
    key: kv.key,
    value: value as KubeObject,
    modRevision: kv.modRevision,
    createRevision: kv.createRevision,
    corrupt,
    encode(format: string, encoder: (v: KubeObject) => Uint8Array): Uint8Array {
      let b = memo.get(format);
      if (!b) {
        b = encoder(value as KubeObject);
        memo.set(format, b);
      }
      return b;
    },
  } as Entry;
}
