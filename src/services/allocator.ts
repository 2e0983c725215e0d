/**
 * A store-backed allocator of numbered items (service IPs, node ports): one key per allocated
 * item under `prefix`, created with the store's create (which fails when the key exists), so two
 * creates asking for the same item race safely, in one process or across replicas sharing the
 * store: one wins, the other is told it is taken. An in-memory set of items known to be taken
 * only steers the search for a free one; the store decides.
 */
import { isStorageError, type Store } from '../storage/types.ts';

export interface AllocationOwner {
  readonly namespace: string;
  readonly name: string;
}

export class StoreAllocator {
  private readonly known = new Set<number>();

  constructor(
    private readonly store: Store,
    /** Key prefix ending with `/`. */
    private readonly prefix: string,
    /** Items are the offsets 1..size (what `keyOf` names). */
    readonly size: number,
    private readonly keyOf: (offset: number) => string,
  ) {}

  /** Loads the items already taken (a hint for the search). */
  async start(): Promise<void> {
    const { kvs } = await this.store.list(this.prefix);
    this.known.clear();
    for (const kv of kvs) {
      const off = this.offsetOfKey(kv.key);
      if (off !== undefined) this.known.add(off);
    }
  }

  private offsetOfKey(key: string): number | undefined {
    const n = Number(key.slice(this.prefix.length).split('-').pop());
    return Number.isInteger(n) ? n : undefined;
  }

  private key(offset: number): string {
    return `${this.prefix}${this.keyOf(offset)}-${offset}`;
  }

  /** Takes `offset`; false when it is already taken. */
  async allocate(offset: number, owner: AllocationOwner): Promise<boolean> {
    try {
      await this.store.create(this.key(offset), encode(owner));
      this.known.add(offset);
      return true;
    } catch (err) {
      if (isStorageError(err, 'KeyExists')) {
        this.known.add(offset);
        return false;
      }
      throw err;
    }
  }

  /** Takes a free item, searching from a random offset; undefined when every item is taken. */
  async allocateNext(owner: AllocationOwner): Promise<number | undefined> {
    if (this.size === 0) return undefined;
    const start = 1 + Math.floor(Math.random() * this.size);
    // First the items not known to be taken, then (another replica may have released some) all.
    for (const skipKnown of [true, false]) {
      for (let i = 0; i < this.size; i++) {
        const off = 1 + ((start - 1 + i) % this.size);
        if (skipKnown && this.known.has(off)) continue;
        if (await this.allocate(off, owner)) return off;
      }
    }
    return undefined;
  }

  /** Gives `offset` back (a missing key is already free). */
  async release(offset: number): Promise<void> {
    this.known.delete(offset);
    try {
      await this.store.delete(this.key(offset));
    } catch (err) {
      if (!isStorageError(err, 'NotFound')) throw err;
    }
  }

  /** Every allocated item with its owner (for the repair at start). */
  async allocated(): Promise<{ offset: number; owner: AllocationOwner & { since?: number } }[]> {
    const { kvs } = await this.store.list(this.prefix);
    const out: { offset: number; owner: AllocationOwner & { since?: number } }[] = [];
    for (const kv of kvs) {
      const off = this.offsetOfKey(kv.key);
      if (off === undefined) continue;
      try {
        out.push({ offset: off, owner: JSON.parse(Buffer.from(kv.value).toString('utf8')) });
      } catch {
        out.push({ offset: off, owner: { namespace: '', name: '' } });
      }
    }
    return out;
  }
}

function encode(owner: AllocationOwner): Uint8Array {
  return Buffer.from(JSON.stringify({ namespace: owner.namespace, name: owner.name, since: Date.now() }));
}
