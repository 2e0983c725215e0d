/** The data dir lock: exclusive while held, free once released or once its process is gone. */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDataDir } from '../../src/server/data-dir.ts';
import { StartupError } from '../../src/server/startup-error.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'kgw-lock-unit-'));
  dirs.push(d);
  return d;
}

describe('lockDataDir', () => {
  it('creates a missing data dir and says so; a second lock fails naming the holder until the first is released', async () => {
    const parent = await tempDir();
    const dir = join(parent, 'data');
    const lock = lockDataDir(dir);
    expect(lock.created).toBe(true);
    expect(lock.path).toBe(dir);
    expect((await stat(dir)).isDirectory()).toBe(true);
    expect(await readFile(join(dir, 'kube-gateway.pid'), 'utf8')).toBe(`${process.pid}\n`);

    let err: unknown;
    try {
      lockDataDir(dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toBe(`data dir ${dir} is in use by another kube-gateway (PID ${process.pid}); stop that server or pass a different --data-dir`);

    lock.release();
    lock.release();
    await expect(stat(join(dir, 'kube-gateway.pid'))).rejects.toThrow(/ENOENT/);
    const again = lockDataDir(dir);
    expect(again.created).toBe(false);
    again.release();
  });

  it('is held by another process until that process dies, without any cleanup by it', async () => {
    const dir = await tempDir();
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', '-e', `import('${join(import.meta.dirname, '../../src/server/data-dir.ts')}').then((m) => { m.lockDataDir(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000); })`],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout!.on('data', (c: Buffer) => c.toString().includes('locked') && resolve()));
    expect(() => lockDataDir(dir)).toThrow(`(PID ${holder.pid})`);
    holder.kill('SIGKILL');
    await new Promise((r) => holder.on('exit', r));
    // The kernel dropped the lock with the process; the stale PID file is simply replaced.
    const lock = lockDataDir(dir);
    expect(await readFile(join(dir, 'kube-gateway.pid'), 'utf8')).toBe(`${process.pid}\n`);
    lock.release();
  });
});
