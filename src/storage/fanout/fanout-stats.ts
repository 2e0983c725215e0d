/**
 * Where the time of the Redis watch path goes, hop by hop (bench:scaleout reads it). Off unless
 * the environment sets KUBE_GATEWAY_FANOUT_STATS_MS (a logging period): then every replica logs,
 * each period, one line `watch fanout stats` with the counts and latencies since the last line.
 *
 * The hops, timed with the stream entry's `a` field (when the pump received the event from the
 * store; one clock, since replicas share a machine in the benchmark):
 * - pump: received from the store -> appended to the stream (the pump's queue and its EVAL);
 * - stream: received by the pump -> read by this replica's XREAD (adds Redis and the reader's loop).
 */

/** Latency samples kept per period (a ring: the newest win). */
const SAMPLES = 20_000;

class Samples {
  private readonly values = new Float64Array(SAMPLES);
  private n = 0;
  add(v: number): void {
    this.values[this.n % SAMPLES] = v;
    this.n++;
  }
  summary(): { n: number; p50: number; p99: number; max: number } | undefined {
    if (this.n === 0) return undefined;
    const sorted = this.values.slice(0, Math.min(this.n, SAMPLES)).sort();
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
    const out = { n: this.n, p50: at(50), p99: at(99), max: sorted[sorted.length - 1]! };
    this.n = 0;
    return out;
  }
}

export class FanoutStats {
  /** Pump: EVALs that appended, entries they carried, the most entries waiting for one. */
  appends = 0;
  appendedEntries = 0;
  maxQueued = 0;
  /** Reader: XREAD round trips, those that came back empty (BLOCK timeout or unblocked), entries read. */
  reads = 0;
  emptyReads = 0;
  readEntries = 0;
  readonly pumpHop = new Samples();
  readonly streamHop = new Samples();

  /** The period from the environment, or undefined (no statistics kept). */
  static fromEnv(): FanoutStats | undefined {
    const ms = Number(process.env.KUBE_GATEWAY_FANOUT_STATS_MS);
    return ms > 0 ? new FanoutStats() : undefined;
  }

  static periodMs(): number {
    return Number(process.env.KUBE_GATEWAY_FANOUT_STATS_MS);
  }

  /** The counts since the last call, which starts a new period. */
  take(): Record<string, unknown> {
    const out = {
      appends: this.appends,
      entriesPerAppend: this.appends ? +(this.appendedEntries / this.appends).toFixed(1) : 0,
      maxQueued: this.maxQueued,
      reads: this.reads,
      emptyReads: this.emptyReads,
      entriesPerRead: this.reads - this.emptyReads ? +(this.readEntries / (this.reads - this.emptyReads)).toFixed(1) : 0,
      pumpHopMs: this.pumpHop.summary(),
      streamHopMs: this.streamHop.summary(),
    };
    this.appends = this.appendedEntries = this.maxQueued = 0;
    this.reads = this.emptyReads = this.readEntries = 0;
    return out;
  }
}
