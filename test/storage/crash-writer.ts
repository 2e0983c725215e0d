/**
 * Child process for the crash test: many concurrent writers create keys in a sqlite store and
 * print each acknowledged key on stdout, until killed. Usage: crash-writer.ts <db> <writers>
 */
import { SqliteStore } from '../../src/storage/sqlite-store.ts';

const [path, writersArg] = process.argv.slice(2);
const store = SqliteStore.open(path!, { historyMs: false });
const writers = Number(writersArg ?? 64);
// A value long enough to span pages, so a torn write would show as a mismatch.
const filler = 'x'.repeat(3000);

async function writer(id: number): Promise<void> {
  for (let n = 0; ; n++) {
    const key = `/registry/crash/w${id}/${n}`;
    const kv = await store.create(key, Buffer.from(JSON.stringify({ key, filler })));
    process.stdout.write(`${key} ${kv.modRevision}\n`);
  }
}

for (let i = 0; i < writers; i++) void writer(i);
