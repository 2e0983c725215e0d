/** Constructors for the storage errors every backend raises, so messages read the same everywhere. */
import { StorageError } from './types.ts';
import type { KeyValue } from './types.ts';

/** A Corrupt error naming the key whose stored value (or row) cannot be decoded. */
export function corruptObject(key: string, cause: unknown): StorageError {
  const why = cause instanceof Error ? cause.message : String(cause);
  const err = new StorageError('Corrupt', `corrupt object at key ${key}: ${why}`, key);
  (err as { cause?: unknown }).cause = cause;
  return err;
}

/** KeyExists for a create of a key that is present. */
export function keyExists(key: string): StorageError {
  return new StorageError('KeyExists', `key exists: ${key}`, key);
}

/** NotFound for an update or delete of an absent key. */
export function keyNotFound(key: string): StorageError {
  return new StorageError('NotFound', `key not found: ${key}`, key);
}

/** Conflict carrying the current value, for a failed compare-and-swap. */
export function conflict(key: string, expected: number, current: KeyValue): StorageError {
  return new StorageError(
    'Conflict',
    `conflict on key ${key}: expected modRevision ${expected}, current is ${current.modRevision}`,
    key,
    current,
  );
}

/** TooOld: `revision` has been compacted; `oldest` is the oldest readable revision. */
export function tooOld(revision: number, oldest: number): StorageError {
  return new StorageError(
    'TooOld',
    `required revision ${revision} has been compacted (oldest available: ${oldest})`,
    undefined,
    undefined,
    oldest,
  );
}

/** TooLarge: `revision` is ahead of the store, which is at `current`. */
export function tooLarge(revision: number, current: number): StorageError {
  return new StorageError(
    'TooLarge',
    `required revision ${revision} is a future revision (current: ${current})`,
    undefined,
    undefined,
    current,
  );
}

/** Unavailable, wrapping a backend failure. */
export function unavailable(what: string, cause: unknown): StorageError {
  const why = cause instanceof Error ? cause.message : String(cause);
  const err = new StorageError('Unavailable', `storage unavailable: ${what}: ${why}`);
  (err as { cause?: unknown }).cause = cause;
  return err;
}
