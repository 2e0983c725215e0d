/**
 * Test helper: a parser of the Prometheus text exposition format 0.0.4, so metric tests assert on
 * families, label sets and values instead of matching strings. Strict: a malformed line throws,
 * as does a sample whose family has no TYPE, so the tests also check the format itself.
 */

export interface PromSample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for histograms). */
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

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parsePrometheusText(text: string): Map<string, PromFamily> {
  const families = new Map<string, PromFamily>();
  const family = (name: string): PromFamily => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, help: '', type: '', samples: [] }));
    return f;
  };
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition must end with a newline');
  for (const line of lines.slice(0, -1)) {
    if (line.startsWith('# HELP ')) {
      const rest = line.slice(7);
      const sp = rest.indexOf(' ');
      family(rest.slice(0, sp)).help = rest.slice(sp + 1).replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type!)) throw new Error(`bad TYPE line: ${line}`);
      family(name!).type = type!;
      continue;
    }
    if (line.startsWith('#') || line === '') continue;
    const m = NAME.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const name = m[0];
    let i = name.length;
    const labels: Record<string, string> = {};
    if (line[i] === '{') {
      i++;
      while (line[i] !== '}') {
        const lm = NAME.exec(line.slice(i));
        if (!lm || line[i + lm[0].length] !== '=' || line[i + lm[0].length + 1] !== '"') throw new Error(`bad label in: ${line}`);
        i += lm[0].length + 2;
        let value = '';
        while (line[i] !== '"') {
          if (i >= line.length) throw new Error(`unterminated label value in: ${line}`);
          if (line[i] === '\\') {
            const next = line[i + 1];
            value += next === 'n' ? '\n' : next;
            i += 2;
          } else value += line[i++];
        }
        i++;
        labels[lm[0]] = value;
        if (line[i] === ',') i++;
        else if (line[i] !== '}') throw new Error(`bad label separator in: ${line}`);
      }
      i++;
    }
    if (line[i] !== ' ') throw new Error(`bad sample line: ${line}`);
    const valueText = line.slice(i + 1).split(' ')[0]!;
    const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : valueText === 'NaN' ? NaN : Number(valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') throw new Error(`bad value in: ${line}`);
    const base = families.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    const f = families.get(base);
    if (!f || f.type === '') throw new Error(`sample ${name} has no TYPE line`);
    f.samples.push({ name, labels, value });
  }
  return families;
}

/** The value of the one sample of `family` whose labels include `labels` (undefined when none). */
export function sampleValue(families: Map<string, PromFamily>, sampleName: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  const base = families.has(sampleName) ? sampleName : sampleName.replace(/_(bucket|sum|count)$/, '');
  const matches = (families.get(base)?.samples ?? []).filter((s) => s.name === sampleName && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${sampleName} match ${JSON.stringify(labels)}`);
  return matches[0]?.value;
}
