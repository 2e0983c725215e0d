/**
 * An unreachable etcd at start is retried, as kube-apiserver waits for its first etcd connection,
 * then fails with one line; a failed start leaves no data dir it created behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, connect, type Socket } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer } from '../../src/server/api-server.ts';
import type { ServerConfig } from '../../src/server/config.ts';
import { StartupError } from '../../src/server/startup-error.ts';
import { startEtcd, type EtcdServer } from '../storage/etcd-server.ts';

let etcd: EtcdServer;
let parent: string;
beforeAll(async () => {
  etcd = await startEtcd();
  parent = await mkdtemp(join(tmpdir(), 'kgw-etcd-start-'));
});
afterAll(async () => {
  await etcd?.stop();
  await rm(parent, { recursive: true, force: true });
});

function config(dataDir: string, endpoint: string): ServerConfig {
  return { securePort: 0, bindAddress: '127.0.0.1', etcdServers: [endpoint], shutdownDelayMs: 0, anonymousAuth: true, dataDir, storageBackend: 'etcd', historyMs: 300_000 };
}

/** A loopback port with nothing listening yet. */
async function unusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** Forwards TCP from `port` to etcd: etcd "coming up" at an address the server already dials. */
async function forward(port: number, target: URL): Promise<{ close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', r));
  return {
    // server.close waits for open connections: end them first.
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => proxy.close(() => r()));
    },
  };
}

describe('etcd at start', () => {
  it('gives up after the dial timeout with one line, and removes the data dir it created', async () => {
    const port = await unusedPort();
    const dataDir = join(parent, 'gives-up');
    const err = await startApiServer({ config: config(dataDir, `http://127.0.0.1:${port}`), etcdDialTimeoutMs: 1500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    const message = (err as Error).message;
    expect(message).toMatch(new RegExp(`^cannot reach etcd at http://127\\.0\\.0\\.1:${port} within 2s \\(.*\\); start etcd there or fix --etcd-servers$`));
    expect(message).not.toContain('\n');
    expect(await readdir(parent)).not.toContain('gives-up');
  });

  it('keeps retrying while etcd is not up yet, then starts', async () => {
    const port = await unusedPort();
    const dataDir = join(parent, 'retries');
    let proxy: { close(): Promise<void> } | undefined;
    const later = setTimeout(async () => {
      proxy = await forward(port, new URL(etcd.endpoint));
    }, 1000);
    try {
      const server = await startApiServer({ config: config(dataDir, `http://127.0.0.1:${port}`), etcdDialTimeoutMs: 15_000 });
      expect(proxy).toBeDefined();
      await server.shutdown();
    } finally {
      clearTimeout(later);
      await proxy?.close();
    }
  });
});
