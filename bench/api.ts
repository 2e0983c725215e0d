/**
 * API server benchmark (issue: API server core): HTTPS on loopback against a server in a separate
 * process on the embedded SQLite store. Prints creates/s with p50/p99 at 1 and 32 clients, get,
 * list of 10,000 ConfigMaps (full and paged by 500), and memory with 100,000 ConfigMaps stored.
 */
import https from 'node:https';
import { forkServer, pct } from './lib/driver.ts';

const server = await forkServer(new URL('./api-server-child.ts', import.meta.url), { execArgv: ['--expose-gc'] });
const ready = server.ready;
const agent = new https.Agent({ ca: ready.ca, cert: ready.cert, key: ready.key, keepAlive: true, maxSockets: 64 });

function request(method: string, path: string, body?: unknown): Promise<{ status: number; bytes: number; text?: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request(`${ready.url}${path}`, { method, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, bytes: buf.length, text: buf.length < 4_000_000 ? buf.toString() : undefined });
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

const memory = server.mem;

const fmt = (n: number, d = 1) => n.toFixed(d);

async function createLoad(ns: string, total: number, clients: number, prefix: string): Promise<void> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const s = performance.now();
        const r = await request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `${prefix}-${i}` }, data: { key: `value-${i}`, other: 'x'.repeat(64) } });
        if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
        lat.push(performance.now() - s);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  console.log(`api create   clients=${String(clients).padStart(2)}  ${fmt(total / secs, 0).padStart(6)}/s  p50 ${fmt(pct(lat, 50), 2)} ms  p99 ${fmt(pct(lat, 99), 2)} ms  (${total} durable creates)`);
}

await request('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
await request('POST', '/api/v1/namespaces', { metadata: { name: 'big' } });
await createLoad('bench', 1000, 1, 'one');
await createLoad('bench', 6000, 32, 'many');

{
  const lat: number[] = [];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < 10000) {
      const i = next++;
      const s = performance.now();
      const r = await request('GET', `/api/v1/namespaces/bench/configmaps/many-${i % 6000}`);
      if (r.status !== 200) throw new Error(`get failed ${r.status}`);
      lat.push(performance.now() - s);
    }
  }));
  const secs = (performance.now() - t0) / 1000;
  console.log(`api get      clients=32  ${fmt(10000 / secs, 0).padStart(6)}/s  p50 ${fmt(pct(lat, 50), 2)} ms  p99 ${fmt(pct(lat, 99), 2)} ms`);
}

// 10,000 objects in one namespace for the list figures.
await createLoad('big', 10000, 32, 'cm');
{
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 10; i++) {
    const s = performance.now();
    const r = await request('GET', '/api/v1/namespaces/big/configmaps');
    times.push(performance.now() - s);
    bytes = r.bytes;
  }
  console.log(`api list     10,000 ConfigMaps full       median ${fmt(pct(times, 50))} ms  min ${fmt(Math.min(...times))} ms  (${fmt(bytes / 1024 / 1024, 2)} MiB)`);
  const paged: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    let token = '';
    let n = 0;
    do {
      const r = await request('GET', `/api/v1/namespaces/big/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      const body = JSON.parse(r.text!);
      n += body.items.length;
      token = body.metadata.continue ?? '';
    } while (token);
    if (n !== 10000) throw new Error(`paged list saw ${n}`);
    paged.push(performance.now() - s);
  }
  console.log(`api list     10,000 ConfigMaps paged 500  median ${fmt(pct(paged, 50))} ms for all 20 pages`);
}

// Memory: fill to 100,000 small ConfigMaps and compare heap with the JSON size of what is stored.
{
  const before = await memory();
  const stored = 17000;
  const target = 100_000;
  await request('POST', '/api/v1/namespaces', { metadata: { name: 'mem' } });
  await createLoad('mem', target - stored, 32, 'm');
  const after = await memory();
  const sample = await request('GET', '/api/v1/namespaces/mem/configmaps/m-1');
  const jsonSize = sample.bytes;
  const added = target - stored;
  const perObject = (after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers) / added;
  console.log(`api memory   ${target.toLocaleString()} ConfigMaps stored: rss ${fmt(after.rss / 1024 / 1024, 0)} MiB, heap ${fmt(after.heapUsed / 1024 / 1024, 0)} MiB`);
  console.log(`api memory   per stored ConfigMap: ${fmt(perObject, 0)} B of heap+buffers for ${jsonSize} B of JSON = ${fmt(perObject - jsonSize, 0)} B beyond its JSON size`);
}

await server.stop();
agent.destroy();
