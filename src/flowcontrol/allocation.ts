/**
 * How the server's seats are shared among priority levels (kube's apf_controller.go):
 *
 * - ServerCL = --max-requests-inflight + --max-mutating-requests-inflight.
 * - NominalCL(l) = ceil(ServerCL * NCS(l) / sum of every level's NCS) (exempt levels' NCS count).
 * - LendableCL = round(NominalCL * lendablePercent / 100); BorrowingCL = round(NominalCL *
 *   borrowingLimitPercent / 100), or ServerCL without a borrowing limit.
 * - Each adjustment period, a level's target is its smoothed seat demand, at least
 *   NominalCL - LendableCL; the limits actually used (CurrentCL) are targets scaled by one fair
 *   fraction, each clamped to [NominalCL - LendableCL, NominalCL + BorrowingCL], such that the
 *   non-exempt levels together get ServerCL.
 */

export interface LevelShares {
  readonly name: string;
  readonly exempt: boolean;
  readonly nominalConcurrencyShares: number;
  readonly lendablePercent: number;
  /** Absent: the level may borrow without limit. */
  readonly borrowingLimitPercent?: number;
}

export interface LevelLimits {
  readonly nominalCL: number;
  readonly lendableCL: number;
  readonly minCL: number;
  readonly maxCL: number;
}

/** Go's math.Round: half away from zero. */
const goRound = (x: number) => Math.sign(x) * Math.round(Math.abs(x));

export function levelLimits(levels: readonly LevelShares[], serverCL: number): Map<string, LevelLimits> {
  const sum = levels.reduce((n, l) => n + l.nominalConcurrencyShares, 0);
  const out = new Map<string, LevelLimits>();
  for (const l of levels) {
    const nominalCL = sum > 0 ? Math.ceil((serverCL * l.nominalConcurrencyShares) / sum) : 0;
    const lendableCL = goRound((nominalCL * l.lendablePercent) / 100);
    const borrowingCL = l.borrowingLimitPercent === undefined ? serverCL : goRound((nominalCL * l.borrowingLimitPercent) / 100);
    out.set(l.name, { nominalCL, lendableCL, minCL: nominalCL - lendableCL, maxCL: nominalCL + borrowingCL });
  }
  return out;
}

export interface AllocationItem {
  readonly lower: number;
  readonly upper: number;
  readonly target: number;
}

/**
 * Finds the fair fraction f with sum(clamp(target * f, lower, upper)) = required (as far as the
 * bounds allow) and returns each item's rounded allocation and f. The sum only grows with f, so
 * f is found by bisection (kube's computeConcurrencyAllocation solves the same equation).
 */
export function allocate(items: readonly AllocationItem[], required: number): { allocs: number[]; fairFrac: number } {
  const at = (f: number) => items.map((it) => Math.min(it.upper, Math.max(it.lower, Math.max(it.target, 0) * f)));
  const sum = (f: number) => at(f).reduce((n, v) => n + v, 0);
  let fairFrac: number;
  if (sum(0) >= required) fairFrac = 0;
  else {
    let lo = 0;
    let hi = 1;
    while (sum(hi) < required && hi < 1e12) hi *= 2;
    for (let i = 0; i < 100 && hi - lo > 1e-12 * hi; i++) {
      const mid = (lo + hi) / 2;
      if (sum(mid) < required) lo = mid;
      else hi = mid;
    }
    fairFrac = hi;
  }
  return { allocs: at(fairFrac).map((v) => Math.max(1, goRound(v))), fairFrac };
}

/**
 * Time-weighted statistics of a level's seat demand over an adjustment period (kube's
 * fairqueuing Integrator), and the smoothed envelope kube keeps across periods.
 */
export class DemandIntegrator {
  private value = 0;
  private lastMs: number;
  private startMs: number;
  private sum = 0;
  private sumSquares = 0;
  private max = 0;
  smoothed = 0;
  highWatermark = 0;
  average = 0;
  stdDev = 0;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.lastMs = this.startMs = now();
  }

  /** The demand from now on (`nowMs`: the time of the change, when the caller has read the clock already). */
  set(v: number, nowMs: number = this.now()): void {
    this.accumulate(nowMs);
    this.value = v;
    if (v > this.max) this.max = v;
  }

  private accumulate(now: number = this.now()): void {
    const dt = now - this.lastMs;
    this.lastMs = now;
    if (dt <= 0) return;
    this.sum += this.value * dt;
    this.sumSquares += this.value * this.value * dt;
  }

  /** Ends a period: updates average, deviation, watermark and the smoothed demand (coefficient 0.977, kube's). */
  reset(): void {
    this.accumulate();
    const duration = this.lastMs - this.startMs;
    this.highWatermark = this.max;
    if (duration > 0) {
      this.average = this.sum / duration;
      this.stdDev = Math.sqrt(Math.max(0, this.sumSquares / duration - this.average * this.average));
      const envelope = this.average + this.stdDev;
      this.smoothed = Math.max(envelope, 0.977 * this.smoothed + 0.023 * envelope);
    }
    this.startMs = this.lastMs;
    this.sum = this.sumSquares = 0;
    this.max = this.value;
  }
}
