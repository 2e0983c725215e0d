/**
 * The Prometheus text exposition format, version 0.0.4, as client_golang's expfmt writes it (what
 * kube-apiserver's /metrics answers): `# HELP` and `# TYPE` per family, one line per sample, label
 * pairs in label-name order, numbers as Go's strconv.FormatFloat(v, 'g', -1, 64).
 */

/** The Content-Type kube-apiserver v1.32 answers /metrics with. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8; escaping=values';

/**
 * A number as expfmt writes it: Go's shortest `%g`, which switches to the exponent form when the
 * decimal exponent is below -4 or at least 6 (`3.11382016e+08`, `7.8368e-05`, but `20000`), with
 * `+Inf`, `-Inf` and `NaN` spelled as Prometheus spells them.
 */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  // toExponential() gives the shortest digits that round-trip, as Go's shortest formatting does.
  const exp = v.toExponential();
  const e = exp.indexOf('e');
  const mantissa = exp.slice(0, e);
  const power = Number(exp.slice(e + 1));
  if (power < -4 || power >= 6) {
    const abs = Math.abs(power);
    return `${mantissa}e${power < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
  }
  // Plain decimal notation; JavaScript's own is the same as Go's %f with the shortest digits here.
  return String(v);
}

/** A HELP text with backslash and newline escaped. */
export function escapeHelp(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A label value with backslash, double quote and newline escaped. */
export function escapeLabelValue(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** `{a="x",b="y"}` for parallel names and values, or '' when there are none. */
export function formatLabels(names: readonly string[], values: readonly string[], extra?: { name: string; value: string }): string {
  if (names.length === 0 && !extra) return '';
  const parts = names.map((n, i) => `${n}="${escapeLabelValue(values[i]!)}"`);
  if (extra) parts.push(`${extra.name}="${escapeLabelValue(extra.value)}"`);
  return `{${parts.join(',')}}`;
}
