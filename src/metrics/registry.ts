/**
 * A small Prometheus registry: counters, gauges and histograms with labels, plus collectors whose
 * samples are computed at scrape time (process figures, stored object counts). Any module that
 * holds the server's registry registers its metrics once at start and then records through the
 * child it looked up:
 *
 *   const requests = registry.counter({ name: 'x_total', help: '...', labels: ['verb', 'code'] });
 *   requests.labels('GET', '200').inc();
 *
 * Recording is meant for hot paths: a labelled child is found by walking one Map per label value
 * (no key string is built, nothing is allocated once the child exists), and a histogram
 * observation is a scan over its bucket bounds.
 */
import { escapeHelp, formatLabels, formatValue } from './exposition.ts';

/** kube's stability levels, written as the `[STABLE]` prefix of HELP; process metrics have none. */
export type Stability = 'ALPHA' | 'BETA' | 'STABLE' | '';

export interface MetricOptions {
  readonly name: string;
  readonly help: string;
  /** Label names, in the order `labels(...)` takes their values. */
  readonly labels?: readonly string[];
  /** Default ALPHA, as kube's component-base metrics. */
  readonly stability?: Stability;
}

export interface HistogramOptions extends MetricOptions {
  /** Upper bounds in increasing order; `+Inf` is implied. */
  readonly buckets: readonly number[];
}

/** One sample a collector reports at scrape time. */
export interface Sample {
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface CollectorOptions {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly stability?: Stability;
  /** Called on every scrape; may read a store. */
  readonly collect: () => readonly Sample[] | Promise<readonly Sample[]>;
}

interface Family {
  readonly name: string;
  render(): Promise<string>;
}

/** Children by label values: one nested Map level per label, the last level holds the child. */
class ChildTable<C> {
  private readonly root = new Map<string, unknown>();
  private readonly all: { values: readonly string[]; child: C }[] = [];

  constructor(
    private readonly labelNames: readonly string[],
    private readonly make: () => C,
  ) {}

  get(values: readonly string[]): C {
    const n = this.labelNames.length;
    if (values.length !== n) throw new Error(`expected ${n} label values, got ${values.length}`);
    if (n === 0) return this.unlabelled();
    let level = this.root;
    for (let i = 0; i < n - 1; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (!next) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    let child = level.get(values[n - 1]!) as C | undefined;
    if (child === undefined) {
      child = this.make();
      level.set(values[n - 1]!, child);
      this.all.push({ values: [...values], child });
    }
    return child;
  }

  private single: C | undefined;
  private unlabelled(): C {
    if (this.single === undefined) {
      this.single = this.make();
      this.all.push({ values: [], child: this.single });
    }
    return this.single;
  }

  /** Every child made so far, with its label values in declaration order. */
  entries(): readonly { values: readonly string[]; child: C }[] {
    return this.all;
  }
}

function compareValues(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}

/**
 * Label names are written in name order (client_golang sorts a descriptor's labels), while
 * `labels(...)` takes values in declaration order: this maps one to the other.
 */
function sortedLabelOrder(names: readonly string[]): { names: string[]; index: number[] } {
  const index = names.map((_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
  return { names: index.map((i) => names[i]!), index };
}

function header(name: string, help: string, stability: Stability, type: string): string {
  const prefix = stability === '' ? '' : `[${stability}] `;
  return `# HELP ${name} ${escapeHelp(prefix + help)}\n# TYPE ${name} ${type}\n`;
}

export class CounterChild {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

export class GaugeChild {
  value = 0;
  set(v: number): void {
    this.value = v;
  }
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
}

export class HistogramChild {
  /** Observations per bucket (not cumulative); the last slot is `+Inf`. */
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > b[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

/** A labelled metric of one type: `labels(...)` finds (or makes) the child for those values. */
export class Metric<C> implements Family {
  private readonly table: ChildTable<C>;
  private readonly order: { names: string[]; index: number[] };

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly stability: Stability,
    private readonly type: 'counter' | 'gauge' | 'histogram',
    labelNames: readonly string[],
    make: () => C,
    private readonly renderChild: (name: string, names: readonly string[], values: readonly string[], child: C) => string,
  ) {
    this.table = new ChildTable(labelNames, make);
    this.order = sortedLabelOrder(labelNames);
  }

  /** The child for these label values (in declaration order); made on first use, then reused. */
  labels(...values: string[]): C {
    return this.table.get(values);
  }

  /** Same as labels(...), for callers that already hold the values in an array. */
  child(values: readonly string[]): C {
    return this.table.get(values);
  }

  async render(): Promise<string> {
    const entries = this.table.entries();
    // client_golang leaves out a family that has no metric yet.
    if (entries.length === 0) return '';
    let out = header(this.name, this.help, this.stability, this.type);
    // Sorted as client_golang sorts a family's metrics: by label values in label-name order.
    const rows = entries.map((r) => ({ values: this.order.index.map((i) => r.values[i]!), child: r.child }));
    rows.sort((a, b) => compareValues(a.values, b.values));
    for (const r of rows) out += this.renderChild(this.name, this.order.names, r.values, r.child);
    return out;
  }
}

export type Counter = Metric<CounterChild>;
export type Gauge = Metric<GaugeChild>;
export type Histogram = Metric<HistogramChild>;

class CollectedFamily implements Family {
  constructor(private readonly opts: CollectorOptions) {}
  get name(): string {
    return this.opts.name;
  }
  async render(): Promise<string> {
    const samples = await this.opts.collect();
    if (samples.length === 0) return '';
    let out = header(this.opts.name, this.opts.help, this.opts.stability ?? 'ALPHA', this.opts.type);
    const rows = samples.map((s) => {
      const { names } = sortedLabelOrder(Object.keys(s.labels ?? {}));
      return { names, values: names.map((n) => s.labels![n]!), value: s.value };
    });
    rows.sort((a, b) => compareValues(a.values, b.values));
    for (const r of rows) out += `${this.opts.name}${formatLabels(r.names, r.values)} ${formatValue(r.value)}\n`;
    return out;
  }
}

export class MetricsRegistry {
  private readonly families = new Map<string, Family>();

  counter(opts: MetricOptions): Counter {
    return this.register(
      new Metric(opts.name, opts.help, opts.stability ?? 'ALPHA', 'counter', opts.labels ?? [], () => new CounterChild(), (name, names, values, c) => `${name}${formatLabels(names, values)} ${formatValue(c.value)}\n`),
    );
  }

  gauge(opts: MetricOptions): Gauge {
    return this.register(
      new Metric(opts.name, opts.help, opts.stability ?? 'ALPHA', 'gauge', opts.labels ?? [], () => new GaugeChild(), (name, names, values, c) => `${name}${formatLabels(names, values)} ${formatValue(c.value)}\n`),
    );
  }

  histogram(opts: HistogramOptions): Histogram {
    const bounds = [...opts.buckets];
    for (let i = 1; i < bounds.length; i++) if (!(bounds[i]! > bounds[i - 1]!)) throw new Error(`${opts.name}: buckets must increase`);
    const les = [...bounds.map(formatValue), '+Inf'];
    const render = (name: string, names: readonly string[], values: readonly string[], c: HistogramChild): string => {
      let out = '';
      let cumulative = 0;
      for (let i = 0; i < les.length; i++) {
        cumulative += c.counts[i]!;
        out += `${name}_bucket${formatLabels(names, values, { name: 'le', value: les[i]! })} ${formatValue(cumulative)}\n`;
      }
      const labels = formatLabels(names, values);
      return `${out}${name}_sum${labels} ${formatValue(c.sum)}\n${name}_count${labels} ${formatValue(c.count)}\n`;
    };
    return this.register(new Metric(opts.name, opts.help, opts.stability ?? 'ALPHA', 'histogram', opts.labels ?? [], () => new HistogramChild(bounds), render));
  }

  /** A family whose samples are computed on every scrape. */
  collector(opts: CollectorOptions): void {
    this.register(new CollectedFamily(opts));
  }

  private register<F extends Family>(f: F): F {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(f.name)) throw new Error(`invalid metric name ${JSON.stringify(f.name)}`);
    if (this.families.has(f.name)) throw new Error(`metric ${f.name} is already registered`);
    this.families.set(f.name, f);
    return f;
  }

  /** Every family in the text format, sorted by name as client_golang's Gather sorts them. */
  async expose(): Promise<string> {
    const names = [...this.families.keys()].sort();
    const parts = await Promise.all(names.map((n) => this.families.get(n)!.render()));
    return parts.join('');
  }
}
