/**
 * Memory that idle watchers add to the server (issue 19: 1,000 idle watchers under 2 MB): a
 * server in a child process (bench/api-server-child.ts, which collects garbage before it answers)
 * reports heap and RSS before and after N watches are opened over HTTP/2, 100 per connection.
 *
 * The server runs from source under tsx, whose esbuild transform keeps function names by
 * redefining `name` on every closure: each closure then carries a 256-byte property store that
 * the build (bin/build.js, no keepNames) does not have. Of the ~18 KB per watcher measured this
 * way, about 6 KB is that; compare runs of this script with each other, not with the build.
 * With --built (session 23): 12.2 KB per idle watcher before WatchStream and the shared watch
 * timer queue, 10.0 KB after; most of the rest is Node's HTTP/2 compat objects and header copies.
 *
 * `npx tsx bench/api-watch-memory.ts [--watchers N] [--built] [--snapshots]` (--built: the server
 * child is bundled as bin/build.js bundles src/, and run by plain Node, so the figure is the shipped
 * server's; --snapshots: the server writes a heap snapshot before and after, in the current
 * directory, for a comparison by constructor).
 */
import { fork } from 'node:child_process';
import http2 from 'node:http2';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { bundledChild } from './lib/driver.ts';

const i = process.argv.indexOf('--watchers');
const watchers = i === -1 ? 1000 : Number(process.argv[i + 1]);
interface Mem { rss: number; heapUsed: number; external: number; arrayBuffers: number }

const childScript = process.argv.includes('--built') ? await bundledChild(new URL('./api-server-child.ts', import.meta.url)) : fileURLToPath(new URL('./api-server-child.ts', import.meta.url));
const child = fork(childScript, [], {
  execArgv: process.argv.includes('--built') ? ['--expose-gc'] : ['--import', 'tsx', '--expose-gc'],
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
});

const ready = await new Promise<{ url: string; ca: string; cert: string; key: string }>((resolve) =>
  child.on('message', (m: { type: string; url: string; ca: string; cert: string; key: string }) => m.type === 'ready' && resolve(m)),
);
const memory = (): Promise<Mem> =>
  new Promise((resolve) => {
    const on = (m: Mem & { type: string }) => {
      if (m.type !== 'mem') return;
      child.off('message', on);
      resolve(m);
    };
    child.on('message', on);
    child.send({ type: 'mem' });
  });
const snapshot = async (): Promise<void> => {
  if (!process.argv.includes('--snapshots')) return;
  const file = await new Promise<string>((resolve) => {
    const on = (m: { type: string; file: string }) => {
      if (m.type !== 'snapshot') return;
      child.off('message', on);
      resolve(m.file);
    };
    child.on('message', on);
    child.send({ type: 'snapshot' });
  });
  console.log(`heap snapshot: ${file}`);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const connect = () => {
  const s = http2.connect(ready.url, { ca: ready.ca, cert: ready.cert, key: ready.key });
  s.on('error', () => {});
  return s;
};
const path = '/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dw';

// One watch first, so that code and caches every watch shares are in the baseline.
const warm = connect();
const first = warm.request({ ':path': path });
first.on('data', () => {});
await sleep(1000);
first.close();
warm.close();
await sleep(1000);

const before = await memory();
await snapshot();
const sessions = Array.from({ length: Math.ceil(watchers / 100) }, connect);
let open = 0;
for (let n = 0; n < watchers; n++) {
  const st = sessions[Math.floor(n / 100)]!.request({ ':path': path });
  st.on('response', (h) => h[':status'] === 200 && open++);
  st.on('data', () => {});
  st.on('error', () => {});
}
while (open < watchers) await sleep(100);
await sleep(2000);
const after = await memory();
await snapshot();
const mb = (b: number) => (b / 1024 / 1024).toFixed(2);
console.log(`watch memory: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`${watchers} idle watchers add: heap ${mb(after.heapUsed - before.heapUsed)} MB, external ${mb(after.external - before.external)} MB, RSS ${mb(after.rss - before.rss)} MB`);
console.log(`per watcher: ${((after.heapUsed - before.heapUsed) / watchers).toFixed(0)} B heap, ${((after.external - before.external) / watchers).toFixed(0)} B external`);
for (const s of sessions) s.destroy();
child.send({ type: 'stop' });
