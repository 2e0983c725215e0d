/**
 * The README's first command, as a user runs it: `npm start` on the embedded store, kubectl via
 * the printed KUBECONFIG, SIGTERM for a clean stop, and a restart that keeps data and certificates.
 */
import { describe, expect, it } from 'vitest';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { startApiServer } from '../../src/server/api-server.ts';
import type { ServerConfig } from '../../src/server/config.ts';

const root = join(import.meta.dirname, '..', '..');

function startMain(args: string[]): Promise<{ child: ChildProcess; kubeconfig: string; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /export KUBECONFIG=(\S+)/.exec(out);
      const u = /listening on (https:\/\/\S+)/.exec(out);
      if (m && u) {
        clearTimeout(timer);
        resolve({ child, kubeconfig: m[1]!, url: u[1]!, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`server exited early (${code}): ${out}`)));
  });
}

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm start', () => {
  it('prints --help with every flag', async () => {
    const out = await new Promise<string>((resolve) =>
      execFile(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts'), '--help'], { cwd: root }, (_e, stdout) => resolve(stdout)),
    );
    for (const flag of ['--secure-port', '--bind-address', '--tls-cert-file', '--tls-private-key-file', '--client-ca-file', '--token-auth-file', '--etcd-servers', '--shutdown-delay-duration', '--data-dir', '--storage-backend']) {
      expect(out).toContain(flag);
    }
  });

  it('serves kubectl on the embedded store, stops on SIGTERM, and restarts with data and certificates kept', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kgw-start-'));
    try {
      const first = await startMain(['--data-dir', dataDir, '--secure-port', '0']);
      expect(first.kubeconfig).toBe(join(dataDir, 'admin.kubeconfig'));
      const created = await kubectl(first.kubeconfig, ['create', 'namespace', 'kept']);
      expect(created.code, created.stderr).toBe(0);
      const caBefore = await readFile(join(dataDir, 'ca.crt'), 'utf8');
      first.child.kill('SIGTERM');
      const code = await new Promise<number | null>((r) => first.child.on('exit', r));
      expect(code).toBe(0);

      const second = await startMain(['--data-dir', dataDir, '--secure-port', '0']);
      expect(await readFile(join(dataDir, 'ca.crt'), 'utf8')).toBe(caBefore);
      const got = await kubectl(second.kubeconfig, ['get', 'namespace', 'kept', '-o', 'name']);
      expect(got.stdout.trim()).toBe('namespace/kept');
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.on('exit', r));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('graceful shutdown', () => {
  it('fails readyz during the shutdown delay, then ends watches cleanly', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'kgw-stop-'));
    const config: ServerConfig = {
      securePort: 0,
      bindAddress: '127.0.0.1',
      etcdServers: [],
      shutdownDelayMs: 1500,
      anonymousAuth: true,
      dataDir,
      storageBackend: 'memory',
      historyMs: 300_000,
    };
    const server = await startApiServer({ config });
    const agent = new https.Agent({ ca: server.caCert, cert: server.adminCert, key: server.adminKey });
    const get = (path: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        https
          .get(`${server.url}${path}`, { agent }, (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          })
          .on('error', reject);
      });
    const watchEnded = new Promise<string>((resolve, reject) => {
      https
        .get(`${server.url}/api/v1/namespaces?watch=1`, { agent }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve(text));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await get('/readyz')).status).toBe(200);
    const stopping = server.shutdown();
    await new Promise((r) => setTimeout(r, 200));
    const during = await get('/readyz?verbose');
    expect(during.status).toBe(500);
    expect(during.text).toContain('[-]shutdown failed');
    expect((await get('/livez')).status).toBe(200);
    const text = await watchEnded;
    expect(text.split('\n').filter((l) => l).every((l) => JSON.parse(l).type === 'ADDED')).toBe(true);
    await stopping;
    agent.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });
});
