/**
 * The loop of a controller that converges by sweeping: a pass every `intervalMs`, never two at
 * once, and a pass asked for while one runs (`trigger`, e.g. on a watch event) runs right after
 * it. A failed pass is logged as a warning and retried at the next interval. The timer never keeps
 * the process alive.
 */
export class PeriodicSweep {
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;

  /** `name` names the controller in warnings. */
  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<unknown>,
  ) {}

  /** Starts the interval; `now` also runs a first pass at once. */
  start(opts: { readonly now?: boolean } = {}): void {
    if (opts.now) this.trigger();
    this.timer = setInterval(() => this.trigger(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Runs a pass now, or right after the one under way. */
  trigger(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      do {
        this.again = false;
        await this.pass();
      } while (this.again);
    } catch (err) {
      process.stderr.write(`${JSON.stringify({ level: 'warn', msg: `${this.name}: ${(err as Error).message}` })}\n`);
    } finally {
      this.running = false;
    }
  }
}
