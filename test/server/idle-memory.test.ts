/**
 * The idle memory reducer (src/server/idle-memory.ts): after a burst of allocation has grown the
 * young generation, an idle process gives it back; a busy one is left alone. Runs in a child
 * process so the test runner's own heap is not collected under it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

const script = (busy: boolean) => `
import { startIdleMemoryReducer, youngGenerationBytes } from './src/server/idle-memory.ts';
// Grow the young generation as a server's start does: many short-lived objects, some surviving.
const keep = [];
for (let i = 0; i < 400_000; i++) { const o = { i, s: 'x' + i }; if (i % 10 === 0) keep.push(o); }
const grown = youngGenerationBytes();
let reductions = 0;
const stop = startIdleMemoryReducer({ intervalMs: 200, onReduce: () => reductions++ });
const until = Date.now() + 1500;
let ticks = 0;
if (${busy}) {
  // Busy in slices, so the reducer's timer does run between them and sees a busy loop.
  while (Date.now() < until) {
    const slice = Date.now() + 40;
    while (Date.now() < slice) for (let i = 0; i < 1000; i++) keep[i % keep.length] = { i };
    await new Promise((r) => setTimeout(r, 1));
    ticks++;
  }
} else await new Promise((r) => setTimeout(r, 1500));
stop();
console.log(JSON.stringify({ grown, after: youngGenerationBytes(), ticks, reductions }));
`;

function run(busy: boolean): Promise<{ grown: number; after: number; ticks: number; reductions: number }> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(busy)], { cwd: root }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()!));
    }),
  );
}

describe('idle memory reducer', () => {
  it('shrinks a grown young generation to its floor once the process is idle', async () => {
    const { grown, after, reductions } = await run(false);
    expect(grown).toBeGreaterThan(2 * 1024 * 1024);
    expect(reductions).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(2 * 1024 * 1024);
  });

  it('leaves it alone while the event loop is busy', async () => {
    const { grown, ticks, reductions } = await run(true);
    expect(ticks).toBeGreaterThan(10);
    expect(grown).toBeGreaterThan(2 * 1024 * 1024);
    expect(reductions).toBe(0);
  });
});
