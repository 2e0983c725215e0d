// The canonical tagged form of a CEL value ({t: type, v: value}), as the differential test's Go
// reference prints kube-apiserver's values, so the two can be compared structurally.
import { Optional } from '@marcbachmann/cel-js';
import { UnsignedInt, Duration } from '@marcbachmann/cel-js/evaluator';
import { formatTimestamp } from './strings-ext.ts';

export interface Tagged {
  readonly t: string;
  readonly v?: unknown;
  readonly type?: string;
}

function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return '+Inf';
  if (d === -Infinity) return '-Inf';
  return Object.is(d, -0) ? '-0' : String(d);
}

function durationNanos(d: Duration): bigint {
  return d.seconds * 1_000_000_000n + BigInt(d.nanos);
}

/** The tagged form of an engine value; throws for values that have none. */
export function canonicalValue(v: unknown): Tagged {
  if (v === null || v === undefined) return { t: 'null' };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (typeof v === 'bigint') return { t: 'int', v: v.toString() };
  if (typeof v === 'number') return { t: 'double', v: formatDouble(v) };
  if (typeof v === 'string') return { t: 'string', v };
  if (v instanceof UnsignedInt) return { t: 'uint', v: v.value.toString() };
  if (v instanceof Uint8Array) return { t: 'bytes', v: Buffer.from(v).toString('base64') };
  if (v instanceof Date) return { t: 'timestamp', v: formatTimestamp(v, true) };
  if (v instanceof Duration) return { t: 'duration', v: durationNanos(v).toString() };
  if (v instanceof Optional) return v.hasValue() ? { t: 'optional', v: canonicalValue(v.value()) } : { t: 'optional' };
  if (Array.isArray(v)) return { t: 'list', v: v.map(canonicalValue) };
  const ctor = (v as object).constructor;
  if (ctor?.name === 'Type' || ctor?.name === 'TypeDeclaration') {
    // cel-go's names for the null and optional types.
    const name = (v as { name: string }).name;
    return { t: 'type', v: name === 'null' ? 'null_type' : name === 'optional' ? 'optional_type' : name };
  }
  if (v instanceof Map || ctor === Object || ctor === undefined) {
    const entries: Array<[unknown, unknown]> = v instanceof Map ? [...v.entries()] : Object.entries(v);
    const pairs = entries.map(([k, x]) => [canonicalValue(k), canonicalValue(x)] as [Tagged, Tagged]);
    pairs.sort((a, b) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));
    return { t: 'map', v: pairs };
  }
  const opaque = v as { celTypeName?: string; toString(): string };
  return { t: 'opaque', type: opaque.celTypeName ?? ctor?.name ?? 'unknown', v: String(v) };
}
