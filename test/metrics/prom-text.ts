/**
 * A parser of the Prometheus text exposition format 0.0.4 for tests: families with their HELP and
 * TYPE, and samples with their labels (escapes undone) and values, so assertions read series by
 * name and labels instead of matching strings.
 */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PromFamily {
  readonly name: string;
  help: string;
  type: string;
  readonly samples: PromSample[];
}

function unescape(s: string, help: boolean): string {
  return s.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === '\\' ? '\\' : !help && c === '"' ? '"' : `\\${c}`));
}

function parseValue(v: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  const n = Number(v);
  if (Number.isNaN(n)) throw new Error(`bad sample value ${JSON.stringify(v)}`);
  return n;
}

/** The family a sample belongs to: histogram and summary series carry suffixes. */
function familyOf(name: string, families: Map<string, PromFamily>): PromFamily | undefined {
  if (families.has(name)) return families.get(name);
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (name.endsWith(suffix)) {
      const f = families.get(name.slice(0, -suffix.length));
      if (f) return f;
    }
  }
  return undefined;
}

export function parsePromText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, help: '', type: 'untyped', samples: [] }));
    return f;
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let m = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (m) {
      family(m[1]!).help = unescape(m[2]!, true);
      continue;
    }
    m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (m) {
      family(m[1]!).type = m[2]!;
      continue;
    }
    if (line.startsWith('#')) continue;
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;
    let lm: RegExpExecArray | null;
    let consumed = 0;
    while ((lm = re.exec(body)) !== null) {
      labels[lm[1]!] = unescape(lm[2]!, false);
      consumed = re.lastIndex;
    }
    if (consumed !== body.length) throw new Error(`bad labels in ${JSON.stringify(line)}`);
    const f = familyOf(m[1]!, families) ?? family(m[1]!);
    f.samples.push({ name: m[1]!, labels, value: parseValue(m[3]!) });
  }
  return families;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none, an error when several. */
export function sampleValue(families: Map<string, PromFamily>, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const f = familyOf(name, families);
  const hits = (f?.samples ?? []).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return hits[0]?.value;
}
