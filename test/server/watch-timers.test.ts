import { describe, expect, it } from 'vitest';
import { WatchTimerQueue, type TimedWatch } from '../../src/server/handlers/watch-timers.ts';

const watch = (name: string, log: string[], again?: (w: TimedWatch) => void): TimedWatch => {
  const w: TimedWatch = {
    dueAt: 0,
    timerIndex: -1,
    onDue: () => {
      log.push(name);
      again?.(w);
    },
  };
  return w;
};
const until = async (cond: () => boolean): Promise<void> => {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
};

describe('WatchTimerQueue', () => {
  it('calls watches in due order, skips removed ones, and re-queues a watch that schedules itself again', async () => {
    const q = new WatchTimerQueue();
    const log: string[] = [];
    const now = Date.now();
    let rounds = 0;
    const a = watch('a', log, (w) => {
      if (++rounds < 2) q.schedule(w, Date.now() + 5);
    });
    const ws = [watch('c', log), watch('b', log), a, watch('gone', log), watch('d', log)];
    q.schedule(ws[0]!, now + 40);
    q.schedule(ws[1]!, now + 20);
    q.schedule(a, now + 60); // moved earlier below
    q.schedule(ws[3]!, now + 10);
    q.schedule(ws[4]!, now + 80);
    q.schedule(a, now + 1);
    q.remove(ws[3]!);
    expect(q.size).toBe(4);
    expect(ws[3]!.timerIndex).toBe(-1);
    await until(() => log.length === 5);
    expect(log).toEqual(['a', 'a', 'b', 'c', 'd']);
    expect(q.size).toBe(0);
    expect(ws.every((w) => w.timerIndex === -1)).toBe(true);
  });

  it('keeps heap order over many random inserts and removals', async () => {
    const q = new WatchTimerQueue();
    const log: number[] = [];
    const now = Date.now();
    const items = Array.from({ length: 200 }, (_, i) => {
      const w: TimedWatch & { at: number } = { dueAt: 0, timerIndex: -1, at: now + 5 + ((i * 37) % 50), onDue: () => log.push(w.at) };
      return w;
    });
    for (const w of items) q.schedule(w, w.at);
    for (const w of items.filter((_, i) => i % 3 === 0)) q.remove(w);
    const kept = items.filter((_, i) => i % 3 !== 0);
    await until(() => log.length === kept.length);
    expect(log).toEqual(kept.map((w) => w.at).sort((x, y) => x - y));
  });
});
