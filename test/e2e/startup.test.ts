/**
 * The process as a user runs it: `npm start` (the README's first command) and the executable it
 * starts, kubectl through the printed KUBECONFIG, signals, one server per data dir, and starts
 * that fail for reasons the user can fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { createHash } from 'node:crypto';
import { startApiServer } from '../../src/server/api-server.ts';
import type { ServerConfig } from '../../src/server/config.ts';
import { buildDir as buildDirectory, ensureBuild } from '../../bin/build.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'kube-gateway.js');

interface Started {
  readonly child: ChildProcess;
  readonly kubeconfig: string;
  readonly url: string;
  readonly port: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns a command that starts the server; resolves once it printed its two lines. */
function startServer(command: string, args: string[]): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /export KUBECONFIG=(\S+)/.exec(out);
      const u = /listening on (https:\/\/\S+)/.exec(out);
      if (m && u) {
        clearTimeout(timer);
        resolve({ child, kubeconfig: m[1]!, url: u[1]!, port: Number(new URL(u[1]!).port), output: () => out, exited });
      }
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then(({ code }) => reject(new Error(`server exited early (${code}): ${out}`)));
  });
}

/** Runs the executable to completion (a start that must fail); its exit code and output. */
function runToExit(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Whether anything accepts TCP connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An HTTPS request as the admin (the data dir's client certificate). */
async function adminRequest(url: string, dataDir: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: Buffer }> {
  const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(join(dataDir, f), 'utf8')));
  return new Promise((resolve, reject) => {
    const req = https.request(`${url}${path}`, { method, headers, ca, cert, key }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The shipped code is a bundle (bin/build.js) while the other tests run the sources: touch the
 * paths that load code lazily or through CommonJS interop, so a bundling mistake shows here.
 */
async function exerciseBundle(url: string, dataDir: string): Promise<void> {
  // A YAML body over 64 KiB is decoded in the worker thread, a separate entry of the bundle.
  const big = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: big', '  namespace: kept', 'data:'];
  for (let i = 0; i < 3000; i++) big.push(`  k${i}: value-${i}-${'x'.repeat(20)}`);
  const yamlBody = big.join('\n') + '\n';
  expect(yamlBody.length).toBeGreaterThan(64 * 1024);
  const posted = await adminRequest(url, dataDir, 'POST', '/api/v1/namespaces/kept/configmaps', { 'content-type': 'application/yaml' }, yamlBody);
  expect(posted.status, posted.body.toString()).toBe(201);
  // Server-side apply (managedFields), protobuf and Table output, and the OpenAPI document.
  const applied = await adminRequest(
    url,
    dataDir,
    'PATCH',
    '/api/v1/namespaces/kept/configmaps/applied?fieldManager=test',
    { 'content-type': 'application/apply-patch+yaml' },
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: b\n',
  );
  expect(applied.status, applied.body.toString()).toBe(201);
  expect(JSON.parse(applied.body.toString()).metadata.managedFields[0].manager).toBe('test');
  const proto = await adminRequest(url, dataDir, 'GET', '/api/v1/namespaces/kept/configmaps/applied', { accept: 'application/vnd.kubernetes.protobuf' });
  expect(proto.status).toBe(200);
  expect(proto.body.subarray(0, 4).toString('latin1')).toBe('k8s\0');
  const table = await adminRequest(url, dataDir, 'GET', '/api/v1/namespaces/kept/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  expect(JSON.parse(table.body.toString()).kind).toBe('Table');
  const openapi = await adminRequest(url, dataDir, 'GET', '/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
  expect(openapi.status).toBe(200);
  expect(openapi.body.length).toBeGreaterThan(1000);
  // Concurrent writes are committed by the sqlite writer thread, another entry of the bundle.
  const creates = await Promise.all(
    Array.from({ length: 16 }, (_, i) =>
      adminRequest(url, dataDir, 'POST', '/api/v1/namespaces/kept/configmaps', { 'content-type': 'application/json' }, JSON.stringify({ metadata: { name: `c${i}` } })),
    ),
  );
  expect(creates.map((r) => r.status)).toEqual(creates.map(() => 201));
}

/** The code cache bin/run-compiled.js writes for the current build/main.cjs, once a server has run a moment. */
async function codeCacheOfBuild(): Promise<Buffer> {
  const source = await readFile(join(buildDirectory, 'main.cjs'), 'utf8');
  const file = join(buildDirectory, `main.${createHash('sha256').update(source).digest('hex').slice(0, 16)}.v8cache`);
  for (let i = 0; i < 100; i++) {
    const data = await readFile(file).catch(() => undefined);
    if (data) return data;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no code cache at ${file}`);
}

const tempDirs: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

beforeAll(async () => {
  // Compile once up front (as npm install's prepare step does), so no test races a rebuild.
  const error = await ensureBuild();
  if (error !== undefined) throw new Error(error);
}, 120_000);

afterAll(async () => {
  await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('npm start', () => {
  it('ships ASCII-only scripts: one other character makes V8 hold a whole script as two-byte text (+1.8 MB idle)', async () => {
    // This build's outputs: earlier builds' chunks linger for an hour (bin/build.js pruneOldChunks).
    const built = (await stat(join(buildDirectory, 'main.cjs'))).mtimeMs;
    const files: string[] = [];
    for (const f of await readdir(buildDirectory)) {
      if ((f.endsWith('.js') || f.endsWith('.cjs')) && (await stat(join(buildDirectory, f))).mtimeMs >= built - 5000) files.push(f);
    }
    expect(files).toContain('main.cjs');
    expect(files).toContain('sqlite-writer-worker.js');
    for (const f of files) {
      const text = await readFile(join(buildDirectory, f), 'latin1');
      const at = text.search(/[^\x00-\x7f]/);
      expect(at, `${f}: non-ASCII near ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}; bin/build.js should have escaped it`).toBe(-1);
    }
  });

  it('prints --help with every flag', async () => {
    const { code, stdout } = await runToExit(['--help']);
    expect(code).toBe(0);
    for (const flag of ['--secure-port', '--bind-address', '--tls-cert-file', '--tls-private-key-file', '--client-ca-file', '--token-auth-file', '--etcd-servers', '--shutdown-delay-duration', '--data-dir', '--storage-backend']) {
      expect(stdout).toContain(flag);
    }
  });

  it('serves kubectl; SIGTERM to the npm process stops the server and leaves nothing listening; a restart keeps data and certificates', async () => {
    const dataDir = await tempDir('kgw-start-');
    const npm = await startServer('npm', ['start', '--', '--data-dir', dataDir, '--secure-port', '0']);
    expect(npm.kubeconfig).toBe(join(dataDir, 'admin.kubeconfig'));
    // What npm start prints after npm's own banner: the README quotes these two lines.
    expect(npm.output()).toMatch(/^API server listening on https:\/\/127\.0\.0\.1:\d+ \(storage: sqlite, data: .+\)\nexport KUBECONFIG=.+admin\.kubeconfig\n/m);
    const created = await kubectl(npm.kubeconfig, ['create', 'namespace', 'kept']);
    expect(created.code, created.stderr).toBe(0);
    await exerciseBundle(npm.url, dataDir);
    // The running server left V8's code cache for its script; V8 accepts it for the same script and flags.
    await codeCacheOfBuild();
    const check = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [
          '--v8-pool-size=2',
          '--input-type=module',
          '-e',
          `import { readFileSync } from 'node:fs'; import { createHash } from 'node:crypto'; import { Module } from 'node:module'; import { Script } from 'node:vm';
           const file = process.argv[1]; const src = readFileSync(file, 'utf8');
           const cache = readFileSync(file.replace(/main\\.cjs$/, 'main.' + createHash('sha256').update(src).digest('hex').slice(0, 16) + '.v8cache'));
           const s = new Script(Module.wrap(src), { filename: file, cachedData: cache });
           process.stdout.write(s.cachedDataRejected ? 'rejected' : 'accepted');`,
          join(buildDirectory, 'main.cjs'),
        ],
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      ),
    );
    expect(check).toBe('accepted');
    const caBefore = await readFile(join(dataDir, 'ca.crt'), 'utf8');
    const serverPid = Number(await readFile(join(dataDir, 'kube-gateway.pid'), 'utf8'));
    // npm execs the executable: the server is npm's direct child, not behind a shell or a loader.
    expect(serverPid).not.toBe(npm.child.pid);
    expect(alive(serverPid)).toBe(true);

    npm.child.kill('SIGTERM');
    const { code } = await npm.exited;
    expect(code).toBe(0);
    expect(npm.output()).toContain('SIGTERM received: shutting down');
    expect(alive(serverPid)).toBe(false);
    expect(await listening(npm.port)).toBe(false);

    const second = await startServer(process.execPath, [bin, '--data-dir', dataDir, '--secure-port', '0']);
    expect(await readFile(join(dataDir, 'ca.crt'), 'utf8')).toBe(caBefore);
    const got = await kubectl(second.kubeconfig, ['get', 'namespace', 'kept', '-o', 'name']);
    expect(got.stdout.trim()).toBe('namespace/kept');
    second.child.kill('SIGINT');
    expect((await second.exited).code).toBe(0);
    expect(await listening(second.port)).toBe(false);
  }, 90_000); // several real servers (and npm) on a loaded 2-core machine
});

describe('npx kube-gateway', () => {
  it('runs the executable; SIGTERM to npx stops the server too, although npx runs it under a shell', async () => {
    const dataDir = await tempDir('kgw-npx-');
    const npx = await startServer('npx', ['kube-gateway', '--data-dir', dataDir, '--secure-port', '0']);
    const serverPid = Number(await readFile(join(dataDir, 'kube-gateway.pid'), 'utf8'));
    expect(alive(serverPid)).toBe(true);
    npx.child.kill('SIGTERM');
    await npx.exited;
    // The shell between npx and the server dies without passing the signal on; the server notices it was orphaned.
    for (let i = 0; i < 100 && alive(serverPid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(serverPid)).toBe(false);
    expect(await listening(npx.port)).toBe(false);
  }, 90_000); // several real servers (and npm) on a loaded 2-core machine
});

describe('one data dir, one server', () => {
  it('a second server on the same data dir fails at once naming the holder, and leaves its kubeconfig alone', async () => {
    const dataDir = await tempDir('kgw-lock-');
    const first = await startServer(process.execPath, [bin, '--data-dir', dataDir, '--secure-port', '0']);
    const kubeconfigBefore = await readFile(first.kubeconfig, 'utf8');

    const second = await runToExit(['--data-dir', dataDir, '--secure-port', '0']);
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(`Error: data dir ${dataDir} is in use by another kube-gateway (PID ${first.child.pid}); stop that server or pass a different --data-dir\n`);

    expect(await readFile(first.kubeconfig, 'utf8')).toBe(kubeconfigBefore);
    const got = await kubectl(first.kubeconfig, ['get', 'namespace', 'default', '-o', 'name']);
    expect(got.stdout.trim()).toBe('namespace/default');

    // The lock is the process's: once the first server is gone (even killed), the data dir is free again.
    first.child.kill('SIGKILL');
    await first.exited;
    const third = await startServer(process.execPath, [bin, '--data-dir', dataDir, '--secure-port', '0']);
    expect(await readFile(join(dataDir, 'kube-gateway.pid'), 'utf8')).toBe(`${third.child.pid}\n`);
    third.child.kill('SIGTERM');
    await third.exited;
  }, 90_000); // several real servers (and npm) on a loaded 2-core machine
});

describe('startup failures print one line, exit 1 and leave no state behind', () => {
  let blocker: Server;
  let blockedPort: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    blockedPort = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => blocker.close(() => r())));

  it('port in use: a data dir it created is removed again', async () => {
    const parent = await tempDir('kgw-port-');
    const dataDir = join(parent, 'data');
    const r = await runToExit(['--data-dir', dataDir, `--secure-port=${blockedPort}`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`Error: cannot listen on 127.0.0.1:${blockedPort}: the port is in use by another process; stop it or pass a different --secure-port (0 picks a free port)\n`);
    expect(await readdir(parent)).toEqual([]);
  });

  it('port in use: an existing data dir keeps what it had and gets no kubeconfig', async () => {
    const dataDir = await tempDir('kgw-port2-');
    const r = await runToExit(['--data-dir', dataDir, `--secure-port=${blockedPort}`]);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(2);
    const left = await readdir(dataDir);
    expect(left).not.toContain('admin.kubeconfig');
    expect(left).not.toContain('kube-gateway.pid');
    expect(left.some((f) => f.includes('.tmp-'))).toBe(false);
  });

  it('SIGTERM while waiting for etcd ends the wait at once and undoes the start', async () => {
    const parent = await tempDir('kgw-etcd-wait-');
    const dataDir = join(parent, 'data');
    // A port nothing listens on: every attempt is refused at once, and the start retries.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const closedPort = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const child = spawn(process.execPath, [bin, '--data-dir', dataDir, '--secure-port', '0', `--etcd-servers=http://127.0.0.1:${closedPort}`], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    // The data dir appears once the start is under way (the lock comes first); then it waits for etcd.
    for (let i = 0; i < 100 && !(await readdir(parent)).includes('data'); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toBe('SIGTERM received: shutting down\n');
    expect(await readdir(parent)).toEqual([]);
  }, 15_000);

  it('a data dir that is a file', async () => {
    const dir = await tempDir('kgw-file-');
    const file = join(dir, 'not-a-dir');
    await writeFile(file, 'x');
    const r = await runToExit(['--data-dir', file, '--secure-port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`Error: --data-dir ${file} is not a directory; pass a directory (it is created when missing)\n`);
    expect(await readFile(file, 'utf8')).toBe('x');
  });

  it('a data dir that cannot be created', async () => {
    const dir = await tempDir('kgw-under-file-');
    await writeFile(join(dir, 'file'), 'x');
    const r = await runToExit(['--data-dir', join(dir, 'file', 'data'), '--secure-port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: cannot use the data dir \S+ \(ENOTDIR: .*\); pass a different --data-dir\n$/);
  });

  it('a data dir that cannot be written (sysfs refuses mkdir, even to root)', async () => {
    const r = await runToExit(['--data-dir', '/sys/kube-gateway-test', '--secure-port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^Error: cannot write the data dir \/sys\/kube-gateway-test \((EPERM|EACCES|EROFS): .*\); make it writable or pass a different --data-dir\n$/);
  });

  it('a data dir whose store is not ours: nothing is written into it', async () => {
    const dataDir = await tempDir('kgw-wrong-');
    await writeFile(join(dataDir, 'state.db'), 'not a database at all, but long enough to have a header............');
    const r = await runToExit(['--data-dir', dataDir, '--secure-port', '0']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`Error: ${join(dataDir, 'state.db')} is not a kube-gateway SQLite store (file is not a database); pass a different --data-dir\n`);
    expect((await readdir(dataDir)).sort()).toEqual(['kube-gateway.lock', 'state.db']);
  });
});

describe('graceful shutdown', () => {
  it('fails readyz during the shutdown delay, then ends watches cleanly', async () => {
    const dataDir = await tempDir('kgw-stop-');
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
  });
});
