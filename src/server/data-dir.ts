/**
 * One data dir, one server. The first server to start on a data dir takes an exclusive lock on
 * it and holds it until it stops; a second one fails at once, naming the holder's PID, before it
 * reads or writes anything there (certificates, store, admin.kubeconfig).
 *
 * The lock is an open SQLite write transaction on `kube-gateway.lock` (BEGIN EXCLUSIVE): SQLite
 * takes a POSIX advisory lock that the kernel drops when the process ends, however it ends, so a
 * crashed server never leaves a stale lock behind and PID reuse cannot fool it. The PID file
 * beside it is only for the message.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { StartupError } from './startup-error.ts';

const LOCK_FILE = 'kube-gateway.lock';
const PID_FILE = 'kube-gateway.pid';

export interface DataDirLock {
  /** The data dir as an absolute path. */
  readonly path: string;
  /** True when this start created the directory (so a failed start can remove it again). */
  readonly created: boolean;
  /** Drops the lock (idempotent). */
  release(): void;
}

/**
 * Creates the data dir if needed and locks it. Throws StartupError when the path cannot be a data
 * dir or another server holds it.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = resolve(dataDir);
  const created = ensureDirectory(path);
  let db: Database.Database;
  try {
    db = new Database(join(path, LOCK_FILE), { timeout: 0 });
  } catch (err) {
    if (created) rmSync(path, { recursive: true, force: true });
    throw fsStartupError(path, err);
  }
  try {
    // The rollback journal in memory: the lock file stays the only file the lock needs.
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') {
      throw new StartupError(`data dir ${path} is in use by another kube-gateway (${holderOf(path)}); stop that server or pass a different --data-dir`);
    }
    if (created) rmSync(path, { recursive: true, force: true });
    throw fsStartupError(path, err);
  }
  writePid(path);
  let released = false;
  return {
    path,
    created,
    release() {
      if (released) return;
      released = true;
      // Only our own PID file: a server that took the lock after a crash of ours has written its own.
      if (readPid(path) === process.pid) unlinkSync(join(path, PID_FILE));
      db.close();
    },
  };
}

/** Makes sure `path` is a directory; returns whether it had to be created. */
function ensureDirectory(path: string): boolean {
  let st;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch (err) {
    throw fsStartupError(path, err);
  }
  if (st !== undefined) {
    if (!st.isDirectory()) throw new StartupError(`--data-dir ${path} is not a directory; pass a directory (it is created when missing)`);
    return false;
  }
  try {
    mkdirSync(path, { recursive: true });
  } catch (err) {
    throw fsStartupError(path, err);
  }
  return true;
}

function writePid(path: string): void {
  // Through a rename, so a second server never reads half a PID.
  const tmp = join(path, `${PID_FILE}.tmp-${process.pid}`);
  writeFileSync(tmp, `${process.pid}\n`);
  renameSync(tmp, join(path, PID_FILE));
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(path, PID_FILE), 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function holderOf(path: string): string {
  // The holder writes its PID right after taking the lock; in the instant between, say what we know.
  const pid = readPid(path);
  return pid === undefined ? 'PID unknown' : `PID ${pid}`;
}

/** A one-line error for a data dir the file system refuses. */
function fsStartupError(path: string, err: unknown): StartupError {
  const code = (err as { code?: string }).code;
  const message = (err as Error).message;
  const reason = code === undefined || message.startsWith(code) ? message : `${code}: ${message}`;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY') {
    return new StartupError(`cannot write the data dir ${path} (${reason}); make it writable or pass a different --data-dir`);
  }
  if (code === 'SQLITE_NOTADB') {
    return new StartupError(`${join(path, LOCK_FILE)} is not a kube-gateway lock file; pass a different --data-dir`);
  }
  return new StartupError(`cannot use the data dir ${path} (${reason}); pass a different --data-dir`);
}
