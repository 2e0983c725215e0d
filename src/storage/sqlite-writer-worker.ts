/**
 * The sqlite store's writer thread: owns the only write connection, commits each batch the
 * store sends (one transaction, one fsync) and answers with the outcomes. The store sends one
 * batch at a time, so commits happen in the order the writes were accepted.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteCommitter, type WriteOp } from './sqlite-commit.ts';

export type WriterRequest = { readonly id: number; readonly kind: 'batch'; readonly ops: readonly WriteOp[] } | { readonly id: number; readonly kind: 'compact'; readonly revision: number };
export type WriterReply = { readonly id: number; readonly outcomes?: unknown[]; readonly error?: string };

const { path } = workerData as { path: string };
const db = new Database(path);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
const committer = new SqliteCommitter(db);

parentPort!.on('message', (req: WriterRequest) => {
  try {
    if (req.kind === 'batch') parentPort!.postMessage({ id: req.id, outcomes: committer.commit(req.ops) } satisfies WriterReply);
    else {
      committer.compact(req.revision);
      parentPort!.postMessage({ id: req.id } satisfies WriterReply);
    }
  } catch (err) {
    parentPort!.postMessage({ id: req.id, error: err instanceof Error ? err.message : String(err) } satisfies WriterReply);
  }
});
