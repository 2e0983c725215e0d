/**
 * The sqlite revision log (one row per revision, in the style of k3s's kine) and the checked
 * conversion of its rows into key-values and watch events. A broken row becomes a Corrupt error.
 */
import { corruptObject } from './errors.ts';
import type { KeyValue, WatchEvent } from './types.ts';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value BLOB,
  old_value BLOB
);
CREATE INDEX IF NOT EXISTS kv_name_id ON kv (name, id);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

/** A row as sqlite returns it; every column is checked before use. */
export interface RawRow {
  readonly id: unknown;
  readonly name: unknown;
  readonly created: unknown;
  readonly deleted: unknown;
  readonly create_revision: unknown;
  readonly prev_revision: unknown;
  readonly value: unknown;
  readonly old_value: unknown;
}

/** A row after checking. For a delete, `value` is the deleted value. */
export interface LogRow {
  readonly id: number;
  readonly name: string;
  readonly created: boolean;
  readonly deleted: boolean;
  readonly createRevision: number;
  readonly prevRevision: number;
  readonly value: Buffer;
  readonly oldValue: Buffer | null;
}

/** Checks a raw row; throws Corrupt naming the key when any column is broken. */
export function checkRow(raw: RawRow): LogRow {
  const name = typeof raw.name === 'string' ? raw.name : String(raw.name);
  const broken = (why: string): never => {
    throw corruptObject(name, `row ${String(raw.id)}: ${why}`);
  };
  if (typeof raw.name !== 'string') broken('key is not text');
  const id = asInt(raw.id) ?? broken('revision is not an integer');
  const created = asInt(raw.created) ?? broken('created flag is not an integer');
  const deleted = asInt(raw.deleted) ?? broken('deleted flag is not an integer');
  const createRevision = created ? id : (asInt(raw.create_revision) ?? broken('create_revision is not an integer'));
  const prevRevision = asInt(raw.prev_revision) ?? broken('prev_revision is not an integer');
  if (!Buffer.isBuffer(raw.value)) broken(raw.value === null ? 'value is NULL' : 'value is not bytes');
  if (raw.old_value !== null && !Buffer.isBuffer(raw.old_value)) broken('old_value is not bytes');
  if (createRevision <= 0 || createRevision > id) broken(`create_revision ${createRevision} out of range`);
  return {
    id,
    name,
    created: created !== 0,
    deleted: deleted !== 0,
    createRevision,
    prevRevision,
    value: raw.value as Buffer,
    oldValue: (raw.old_value as Buffer | null) ?? null,
  };
}

/** The key-value a (non-deleted) row holds. */
export function rowKv(row: LogRow): KeyValue {
  return { key: row.name, value: row.value, createRevision: row.createRevision, modRevision: row.id };
}

/** The watch event a row records. */
export function rowEvent(row: LogRow): WatchEvent {
  const kv = rowKv(row);
  const prevKv: KeyValue | undefined =
    !row.created && row.prevRevision > 0 && row.oldValue
      ? { key: row.name, value: row.oldValue, createRevision: row.createRevision, modRevision: row.prevRevision }
      : undefined;
  const type = row.created ? 'create' : row.deleted ? 'delete' : 'update';
  return prevKv ? { type, kv, prevKv } : { type, kv };
}

function asInt(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  return undefined;
}
