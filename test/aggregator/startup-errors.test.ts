/**
 * The aggregation layer's configuration errors stop the start as StartupErrors (one line, no
 * stack), though the aggregation layer itself knows nothing of the server.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags, type ServerConfig } from '../../src/server/config.ts';
import { startApiServer } from '../../src/server/api-server.ts';
import { StartupError } from '../../src/server/startup-error.ts';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function startWith(flags: string[]): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'kgw-aggregation-start-'));
  dirs.push(dir);
  const config = parseFlags(['--storage-backend', 'memory', '--secure-port', '0', '--data-dir', dir, ...flags]) as ServerConfig;
  try {
    const server = await startApiServer({ config });
    await server.shutdown();
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('aggregation start errors', () => {
  it('an unreadable --proxy-client-cert-file is a StartupError naming the flag and the file', async () => {
    const err = await startWith(['--proxy-client-cert-file', '/nonexistent/proxy.crt', '--proxy-client-key-file', '/nonexistent/proxy.key']);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toBe("cannot read --proxy-client-cert-file /nonexistent/proxy.crt: ENOENT: no such file or directory, open '/nonexistent/proxy.crt'");
  });
});
