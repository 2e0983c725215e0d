/**
 * How store events live in a Redis stream. One stream per watched prefix; an entry's ID is
 * `<revision>-<n>` (n counts the events of one revision), so Redis itself refuses an entry that
 * does not come after the stream's top: a late or duplicate append cannot reorder the stream.
 * Progress ("every event up to this revision is in the stream") is an entry of type `p`.
 */
import type { KeyValue, WatchEvent } from '../types.ts';

/** The Redis keys of one prefix. The `{prefix}` hash tag keeps them in one slot (a Lua script touches them together). */
export interface StreamKeys {
  /** The stream of events. */
  readonly stream: string;
  /** Every event under the prefix with a revision above this number is in the stream (absent: no stream yet). */
  readonly start: string;
  /** The pump's lease: the identity of the replica allowed to append, with an expiry. */
  readonly lease: string;
  /** The lowest revision a replica needs the stream to start at (set by replicas that cannot join it yet). */
  readonly want: string;
}

export function streamKeys(namespace: string, prefix: string): StreamKeys {
  const base = `${namespace}:{${prefix}}`;
  return { stream: `${base}:stream`, start: `${base}:start`, lease: `${base}:pump`, want: `${base}:want` };
}

/** The stream ID after which a reader at `revision` continues: past every entry of that revision. */
export function afterRevision(revision: number): string {
  return `${revision}-18446744073709551615`;
}

/** The revision of a stream ID. */
export function revisionOf(id: string): number {
  const dash = id.indexOf('-');
  return Number(dash < 0 ? id : id.slice(0, dash));
}

export type Fields = Array<string | Buffer>;

/** A stream entry's fields (after the ID) for one event. */
export function encodeEvent(ev: WatchEvent, at: number): Fields {
  const type = ev.type === 'create' ? 'c' : ev.type === 'update' ? 'u' : 'd';
  const f: Fields = ['t', type, 'k', ev.kv.key, 'v', Buffer.from(ev.kv.value), 'c', String(ev.kv.createRevision), 'a', String(at)];
  if (ev.prevKv) f.push('pv', Buffer.from(ev.prevKv.value), 'pc', String(ev.prevKv.createRevision), 'pm', String(ev.prevKv.modRevision));
  return f;
}

export function encodeProgress(at: number): Fields {
  return ['t', 'p', 'a', String(at)];
}

export type Decoded = { readonly revision: number; readonly at: number; readonly event?: WatchEvent };

/** Decodes one entry as XREAD/XRANGE return it (with Buffer replies): [id, [field, value, ...]]. */
export function decodeEntry(id: string, raw: readonly Buffer[]): Decoded {
  const f = new Map<string, Buffer>();
  for (let i = 0; i + 1 < raw.length; i += 2) f.set(raw[i]!.toString(), raw[i + 1]!);
  const revision = revisionOf(id);
  const type = f.get('t')?.toString();
  const at = Number(f.get('a')?.toString() ?? 0);
  if (type === 'p') return { revision, at };
  const key = f.get('k')?.toString();
  if (key === undefined || (type !== 'c' && type !== 'u' && type !== 'd')) throw new Error(`malformed watch stream entry ${id}`);
  const kv: KeyValue = { key, value: new Uint8Array(f.get('v') ?? Buffer.alloc(0)), createRevision: Number(f.get('c')?.toString() ?? 0), modRevision: revision };
  const pv = f.get('pv');
  const prevKv: KeyValue | undefined = pv
    ? { key, value: new Uint8Array(pv), createRevision: Number(f.get('pc')?.toString() ?? 0), modRevision: Number(f.get('pm')?.toString() ?? 0) }
    : undefined;
  const kind = type === 'c' ? 'create' : type === 'u' ? 'update' : 'delete';
  return { revision, at, event: prevKv ? { type: kind, kv, prevKv } : { type: kind, kv } };
}

/** Approximate bytes an entry costs in Redis (for the stream's byte budget). */
export function entryBytes(fields: Fields): number {
  let n = 32;
  for (const f of fields) n += typeof f === 'string' ? f.length : f.byteLength;
  return n;
}
