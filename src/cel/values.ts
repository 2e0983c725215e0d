// CEL value equality across the engine's JavaScript representations (bigint int, number double,
// UnsignedInt uint, arrays, Maps and plain objects), with cross-type numeric equality.
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { timestampNanos } from './timestamps.ts';

function numeric(v: unknown): number | bigint | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.value;
  return undefined;
}

function entries(v: object): Array<[unknown, unknown]> {
  return v instanceof Map ? [...v.entries()] : Object.entries(v);
}

/** True when two CEL values are equal under CEL's heterogeneous equality. */
export function celEquals(a: unknown, b: unknown): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) {
    if (na === undefined || nb === undefined) return false;
    // eslint-disable-next-line eqeqeq -- bigint/number comparison is exact in JS
    return na == nb;
  }
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => celEquals(x, b[i]));
  }
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && timestampNanos(a) === timestampNanos(b);
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  }
  const ea = entries(a);
  const eb = entries(b);
  if (ea.length !== eb.length) return false;
  return ea.every(([k, v]) => eb.some(([k2, v2]) => celEquals(k, k2) && celEquals(v, v2)));
}
