/** The sweep loop shared by the identity controllers: one pass at a time, triggers coalesced, failures retried. */
import { describe, expect, it, vi } from 'vitest';
import { PeriodicSweep } from '../../src/controllers/periodic-sweep.ts';

describe('PeriodicSweep', () => {
  it('never runs two passes at once; triggers during a pass become one more pass after it', async () => {
    let active = 0;
    let maxActive = 0;
    let passes = 0;
    let release!: () => void;
    const sweep = new PeriodicSweep('test', 60_000, async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      passes++;
      if (passes === 1) await new Promise<void>((r) => (release = r));
      active--;
    });
    sweep.trigger();
    sweep.trigger();
    sweep.trigger();
    expect(passes).toBe(1);
    release();
    await vi.waitFor(() => expect(passes).toBe(2));
    await new Promise((r) => setTimeout(r, 20));
    expect(passes).toBe(2);
    expect(maxActive).toBe(1);
  });

  it('logs a failed pass as a warning naming the controller and runs again at the next interval', async () => {
    const writes: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (writes.push(String(chunk)), true));
    let passes = 0;
    const sweep = new PeriodicSweep('flaky controller', 10, async () => {
      passes++;
      if (passes === 1) throw new Error('boom');
    });
    try {
      sweep.start({ now: true });
      await vi.waitFor(() => expect(passes).toBeGreaterThanOrEqual(2));
    } finally {
      sweep.stop();
      spy.mockRestore();
    }
    expect(writes.some((w) => w.includes('flaky controller: boom'))).toBe(true);
  });
});
