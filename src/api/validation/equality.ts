/** Semantic equality of decoded JSON values, as kube's immutability checks compare fields. */

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v as object).length === 0;
  return false;
}

/**
 * True when `a` and `b` are the same JSON value. Absent, null, `''`, `{}` and `[]` count as equal,
 * because an omitempty field decoded from storage cannot tell them apart; timestamps compare by instant.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmptyValue(a) && isEmptyValue(b)) return true;
  if (typeof a === 'string' && typeof b === 'string') return sameInstant(a, b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => semanticEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!semanticEqual(ao[k], bo[k])) return false;
  return true;
}

const timestampRe = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

// Two RFC 3339 strings for the same instant (`Z` vs `+00:00`) are the same metav1.Time.
function sameInstant(a: string, b: string): boolean {
  if (!timestampRe.test(a) || !timestampRe.test(b)) return false;
  const ta = Date.parse(a);
  return !Number.isNaN(ta) && ta === Date.parse(b) && fractionOf(a) === fractionOf(b);
}

// Date.parse keeps milliseconds only; MicroTime differences below that must still count.
function fractionOf(ts: string): string {
  const m = /\.(\d+)/.exec(ts);
  return (m?.[1] ?? '').replace(/0+$/, '');
}
