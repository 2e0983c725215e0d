// Standard CEL overloads the engine lacks: int(uint), bytes ordering, optional equality and type,
// and the timestamp/duration conversions.
import { Optional, evaluate, type Environment } from '@marcbachmann/cel-js';
import { UnsignedInt, Duration } from '@marcbachmann/cel-js/evaluator';
import { celEquals } from './values.ts';
import { formatTimestamp, durationText } from './strings-ext.ts';

const INT64_MAX = (1n << 63n) - 1n;

function fail(message: string): never {
  throw new Error(message);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

function optionalEquals(a: Optional, b: Optional): boolean {
  if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
  return celEquals(a.value(), b.value());
}

/**
 * cel-go's `optional_type`: the value of type() of any optional, and an identifier. The engine keeps
 * its own optional type value unexposed, so one is made with its Type class (found through a type
 * value the engine does expose), which canonical.ts and equality treat as any other type value.
 */
const TypeValue = (evaluate('int') as object).constructor as new (name: string) => object;
const OPTIONAL_TYPE = new TypeValue('optional');

/** Registers the missing standard overloads on an engine environment. */
export function registerCoreOverloads(env: Environment): void {
  env.registerFunction('int(uint): int', (u: UnsignedInt) => (u.value > INT64_MAX ? fail('integer overflow') : u.value));
  env.registerFunction('int(google.protobuf.Timestamp): int', (t: Date) => BigInt(Math.floor(t.getTime() / 1000)));
  env.registerFunction('string(google.protobuf.Timestamp): string', (t: Date) => formatTimestamp(t));
  env.registerFunction('string(google.protobuf.Duration): string', durationText);
  env.registerFunction('int(google.protobuf.Duration): int', (d: Duration) => d.seconds * 1_000_000_000n + BigInt(d.nanos));
  env.registerFunction('timestamp(google.protobuf.Timestamp): google.protobuf.Timestamp', (t: Date) => t);
  env.registerFunction('duration(google.protobuf.Duration): google.protobuf.Duration', (d: Duration) => d);

  env.registerOperator('bytes < bytes', (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) < 0);
  env.registerOperator('bytes <= bytes', (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) <= 0);
  env.registerOperator('bytes > bytes', (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) > 0);
  env.registerOperator('bytes >= bytes', (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) >= 0);
  env.registerOperator('optional<dyn> == optional<dyn>', optionalEquals);
  env.registerFunction('type(optional<dyn>): type', () => OPTIONAL_TYPE);
  env.registerConstant('optional_type', 'type', OPTIONAL_TYPE);
}
