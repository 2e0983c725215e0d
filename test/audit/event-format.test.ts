/** Go's MicroTime as the audit events write it: always six fractional digits, UTC. */
import { describe, expect, it } from 'vitest';
import { microTime } from '../../src/audit/index.ts';

describe('microTime', () => {
  it('writes RFC 3339 with microseconds, across second boundaries', () => {
    const t = Date.UTC(2026, 10, 28, 4, 3, 36, 277) + 0.391;
    expect(microTime(t)).toBe('2026-11-28T04:03:36.277391Z');
    expect(microTime(t + 0.5)).toBe('2026-11-28T04:03:36.277891Z');
    expect(microTime(Date.UTC(2026, 10, 28, 4, 3, 37, 5))).toBe('2026-11-28T04:03:37.005000Z');
    expect(microTime(Date.UTC(2026, 10, 28, 4, 3, 36, 0))).toBe('2026-11-28T04:03:36.000000Z');
    expect(microTime(Date.UTC(2026, 10, 28, 4, 3, 36, 999) + 0.999)).toBe('2026-11-28T04:03:36.999999Z');
  });
});
