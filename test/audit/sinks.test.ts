/**
 * Audit sinks: log rotation by size with lumberjack's backup names, pruning by count and age, the
 * bounded buffer dropping (and counting) what it cannot hold, webhook batches, and backends that
 * are slow or down never holding requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogSink, WebhookSink } from '../../src/audit/sinks.ts';
import { startTestServer } from '../server/harness.ts';
import { auditFlags } from './flags.ts';
import { parsePromText, sampleValue } from '../metrics/prom-text.ts';

const POLICY = new URL('./audit-policy.yaml', import.meta.url).pathname;

function recorder() {
  const errors: Array<{ plugin: string; count: number }> = [];
  return { errors, error: (plugin: string, count: number) => void errors.push({ plugin, count }) };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-audit-sinks-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('log sink', () => {
  it('rotates at --audit-log-maxsize into lumberjack-named backups and keeps --audit-log-maxbackup of them', async () => {
    const path = join(dir, 'rot', 'audit.log');
    const obs = recorder();
    const sink = new LogSink({ path, maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0, bufferSize: 10_000 }, obs);
    const line = JSON.stringify({ kind: 'Event', pad: 'x'.repeat(100 * 1024) });
    // About 4.1 MB in all: four rotations at 1 MiB.
    for (let i = 0; i < 40; i++) {
      sink.push(line);
      await new Promise((r) => setImmediate(r));
    }
    await sink.close();
    const files = (await readdir(join(dir, 'rot'))).sort();
    const backups = files.filter((f) => f !== 'audit.log');
    expect(files).toContain('audit.log');
    expect(backups).toHaveLength(2);
    for (const b of backups) expect(b).toMatch(/^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}\.log$/);
    // Every file holds whole lines and stays within the limit.
    for (const f of files) {
      const text = await readFile(join(dir, 'rot', f), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024 * 1024);
      for (const l of text.split('\n').filter((x) => x !== '')) expect(JSON.parse(l).kind).toBe('Event');
    }
    expect(obs.errors).toEqual([]);
  });

  it('removes backups older than --audit-log-maxage days when it rotates', async () => {
    const d = join(dir, 'age');
    const path = join(d, 'audit.log');
    const sink = new LogSink({ path, maxSizeMB: 1, maxBackups: 0, maxAgeDays: 3, bufferSize: 10_000 }, recorder());
    await writeFile(join(d, 'audit-2001-01-01T00-00-00.000.log'), 'old\n');
    const recent = new Date(Date.now() - 86_400_000).toISOString().replace(/:/g, '-').replace(/Z$/, '');
    await writeFile(join(d, `audit-${recent}.log`), 'recent\n');
    const line = 'x'.repeat(600 * 1024);
    sink.push(line);
    await new Promise((r) => setTimeout(r, 20));
    sink.push(line);
    await sink.close();
    const files = await readdir(d);
    expect(files).not.toContain('audit-2001-01-01T00-00-00.000.log');
    expect(files).toContain(`audit-${recent}.log`);
    expect(files.filter((f) => f !== 'audit.log' && f !== `audit-${recent}.log`)).toHaveLength(1);
  });

  it('writes every line whole and in order through a slow file, whose writes are still pending as new lines come', async () => {
    // A named pipe that another process reads slowly: each write waits for the reader, so lines keep
    // arriving while earlier batches are unwritten (the sink reuses a batch's buffer only once it is written).
    const path = join(dir, 'slow.fifo');
    execFileSync('mkfifo', [path]);
    const slowReader = `const fs = require('fs'); const fd = fs.openSync(process.argv[1], 'r'); const b = Buffer.alloc(16384);
      (function next() { const n = fs.readSync(fd, b, 0, b.length, null); if (n === 0) return; process.stdout.write(Buffer.from(b.subarray(0, n))); setTimeout(next, 2); })();`;
    const reader = spawn(process.execPath, ['-e', slowReader, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    reader.stdout.on('data', (c: Buffer) => chunks.push(c));
    const exited = new Promise((r) => reader.on('exit', r));
    // Opening the pipe to write waits for the reader to open it.
    const sink = new LogSink({ path, maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0, bufferSize: 100_000 }, recorder());
    const pad = 'y'.repeat(2000);
    let n = 0;
    for (let burst = 0; burst < 40; burst++) {
      for (let i = 0; i < 50; i++) sink.push(`{"n":${n++},"pad":"${pad}"}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await sink.close();
    await exited;
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(n);
    lines.forEach((l, i) => expect(JSON.parse(l)).toEqual({ n: i, pad }));
  });

  it('drops what does not fit its buffer and counts it, never blocking the caller', async () => {
    const obs = recorder();
    const sink = new LogSink({ path: join(dir, 'small.log'), maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0, bufferSize: 5 }, obs);
    for (let i = 0; i < 100; i++) sink.push(`{"n":${i}}`);
    await sink.close();
    const lines = (await readFile(join(dir, 'small.log'), 'utf8')).split('\n').filter((l) => l !== '');
    expect(lines).toEqual(['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}', '{"n":4}']);
    expect(obs.errors.filter((e) => e.plugin === 'buffered').reduce((a, e) => a + e.count, 0)).toBe(95);
  });
});

/** An audit webhook on loopback that records each EventList; `hold` delays answers until released. */
async function auditWebhook(): Promise<{ url: string; lists: Array<{ kind: string; items: unknown[] }>; hold: boolean; release(): void; close(): Promise<void> }> {
  const lists: Array<{ kind: string; items: unknown[] }> = [];
  const held: Array<() => void> = [];
  const state = { hold: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = () => {
        lists.push(JSON.parse(Buffer.concat(chunks).toString()));
        res.writeHead(200).end('{}');
      };
      if (state.hold) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/audit`,
    lists,
    get hold() {
      return state.hold;
    },
    set hold(v: boolean) {
      state.hold = v;
    },
    release: () => {
      state.hold = false;
      for (const h of held.splice(0)) h();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const webhookOpts = (url: string) => ({ url, bufferSize: 1000, maxBatchSize: 3, maxBatchWaitMs: 30, throttleQps: 0, throttleBurst: 1, initialBackoffMs: 5, timeoutMs: 2000 });

describe('webhook sink', () => {
  it('sends EventLists of at most the batch size, the rest after the batch wait', async () => {
    const wh = await auditWebhook();
    const sink = new WebhookSink(webhookOpts(wh.url), recorder());
    for (let i = 0; i < 7; i++) sink.push(JSON.stringify({ kind: 'Event', n: i }));
    for (let i = 0; i < 100 && wh.lists.reduce((a, l) => a + l.items.length, 0) < 7; i++) await new Promise((r) => setTimeout(r, 20));
    await sink.close();
    await wh.close();
    expect(wh.lists.every((l) => l.kind === 'EventList')).toBe(true);
    expect(wh.lists.map((l) => l.items.length)).toEqual([3, 3, 1]);
    expect(wh.lists.flatMap((l) => l.items.map((e) => (e as { n: number }).n))).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('gives a batch up after five failed attempts against a webhook that is down, and counts its events', async () => {
    const obs = recorder();
    const sink = new WebhookSink(webhookOpts('http://127.0.0.1:1/audit'), obs);
    for (let i = 0; i < 3; i++) sink.push('{"kind":"Event"}');
    for (let i = 0; i < 200 && obs.errors.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(obs.errors).toEqual([{ plugin: 'webhook', count: 3 }]);
    await sink.close();
  });
});

describe('through the server', () => {
  it('a slow audit webhook holds no request: every response comes back before the webhook answers once', async () => {
    const wh = await auditWebhook();
    wh.hold = true;
    const d = await mkdtemp(join(tmpdir(), 'kgw-audit-slow-'));
    await writeFile(join(d, 'webhook.kubeconfig'), `apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {server: "${wh.url}"}\ncontexts:\n- name: a\n  context: {cluster: a, user: a}\ncurrent-context: a\nusers:\n- name: a\n  user: {}\n`);
    const t = await startTestServer({ config: { audit: auditFlags({ policyFile: POLICY, webhookConfigFile: join(d, 'webhook.kubeconfig'), webhookBatchMaxSize: 2, webhookBatchMaxWaitMs: 10 }) } });
    try {
      for (let i = 0; i < 20; i++) expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `slow-${i}` } } })).status).toBe(201);
      expect(wh.lists).toHaveLength(0);
      wh.release();
      for (let i = 0; i < 200 && wh.lists.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(wh.lists.length).toBeGreaterThan(0);
      expect((wh.lists[0]!.items[0] as { kind: string }).kind).toBe('Event');
    } finally {
      await t.close();
      await wh.close();
      await rm(d, { recursive: true, force: true });
    }
  });

  it('a down audit webhook holds no request, and its lost events are counted', async () => {
    const d = await mkdtemp(join(tmpdir(), 'kgw-audit-down-'));
    await writeFile(join(d, 'webhook.kubeconfig'), `apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {server: "http://127.0.0.1:1/audit"}\ncontexts:\n- name: a\n  context: {cluster: a, user: a}\ncurrent-context: a\nusers:\n- name: a\n  user: {}\n`);
    const t = await startTestServer({ config: { audit: auditFlags({ policyFile: POLICY, webhookConfigFile: join(d, 'webhook.kubeconfig'), webhookBatchMaxSize: 2, webhookBatchMaxWaitMs: 10, webhookInitialBackoffMs: 5 }) } });
    try {
      for (let i = 0; i < 10; i++) expect((await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `down-${i}` } } })).status).toBe(201);
      let lost: number | undefined;
      for (let i = 0; i < 300 && !lost; i++) {
        await new Promise((r) => setTimeout(r, 20));
        lost = sampleValue(parsePromText((await t.request('GET', '/metrics')).text), 'apiserver_audit_error_total', { plugin: 'webhook' });
      }
      expect(lost).toBeGreaterThan(0);
    } finally {
      await t.close();
      await rm(d, { recursive: true, force: true });
    }
  });
});
