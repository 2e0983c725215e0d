/**
 * Gives the young generation back when the process is idle.
 *
 * V8 grows its young generation (the semispaces, up to 32 MB here) while allocation is heavy,
 * as it is during start (the default RBAC policy is reconciled, discovery and OpenAPI documents
 * are built) and under load, and shrinks it only in garbage collections that see a low
 * allocation rate. An idle server allocates almost nothing, so no collection runs and the grown
 * semispaces stay resident: about 6 MB of the idle process's 85 MB. Chrome's memory reducer
 * solves the same problem for idle tabs by collecting when a tab goes quiet; this is that, for a
 * server: when the event loop was almost unused over a whole interval and the young generation is
 * larger than its floor, a few collections run, which lets V8 halve it down to the floor. The
 * check itself (two counters, once a second) costs nothing measurable.
 *
 * Under load nothing happens (the loop is busy), so throughput keeps the large young generation;
 * one reduction costs a few milliseconds of a loop that had nothing to do. Only the server process
 * (src/main.ts) starts it: tests that embed the server do not collect their own heaps.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleMemoryOptions {
  /** How often idleness is judged (ms). */
  readonly intervalMs?: number;
  /** At or below this event-loop utilization over an interval, the process counts as idle. */
  readonly idleUtilization?: number;
  /** Young-generation bytes (both semispaces, resident) above which a reduction is worth it. */
  readonly youngBytesFloor?: number;
  /** Told of every reduction (young-generation bytes before and after), for logs and metrics. */
  readonly onReduce?: (beforeBytes: number, afterBytes: number) => void;
}

type GcFunction = (options?: { type?: 'major' | 'minor' }) => void;

/** The engine's collector. Exposed at run time: the process was not started with --expose-gc. */
function collector(): GcFunction {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as GcFunction;
}

/** Resident bytes of the young generation. */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;
}

/** Starts judging idleness; returns a function that stops it. The timer never keeps the process alive. */
export function startIdleMemoryReducer(opts: IdleMemoryOptions = {}): () => void {
  const intervalMs = opts.intervalMs ?? 1_000;
  const idleUtilization = opts.idleUtilization ?? 0.02;
  const floor = opts.youngBytesFloor ?? 2 * 1024 * 1024;
  let gc: GcFunction | undefined;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    const before = youngGenerationBytes();
    if (busy > idleUtilization || before <= floor) return;
    gc ??= collector();
    // V8 halves the young generation at most once per collection that sees the low allocation
    // rate: three rounds take it from its usual post-start 8 MB to the floor.
    for (let i = 0; i < 3 && youngGenerationBytes() > floor; i++) {
      gc({ type: 'major' });
      gc({ type: 'minor' });
    }
    opts.onReduce?.(before, youngGenerationBytes());
    // The collections themselves must not count as activity for the next judgement.
    last = performance.eventLoopUtilization();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
