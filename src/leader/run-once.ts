/**
 * The controllers that must run once per cluster (kube-controller-manager's: namespace lifecycle,
 * garbage collector, event TTL, token controllers, ...). Each is made fresh by its factory when
 * this replica starts leading and stopped when it stops, so a replica that loses the Lease and
 * wins it again starts from the caches' current state rather than from a stopped instance.
 */
export interface Controller {
  start(): void;
  stop(): void;
}

export class RunOnceControllers {
  private readonly factories: Array<() => Controller | undefined> = [];
  private running: Controller[] = [];
  private active = false;

  /** Adds a controller; when the set already runs, it starts at once. `undefined` from the factory: nothing to run. */
  add(factory: () => Controller | undefined): void {
    this.factories.push(factory);
    if (this.active) this.launch(factory);
  }

  get isRunning(): boolean {
    return this.active;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    for (const f of this.factories) this.launch(f);
  }

  stop(): void {
    if (!this.active) return;
    this.active = false;
    const running = this.running;
    this.running = [];
    for (const c of running.reverse()) c.stop();
  }

  private launch(factory: () => Controller | undefined): void {
    const c = factory();
    if (!c) return;
    c.start();
    this.running.push(c);
  }
}
