import { describe, expect, it } from 'vitest';
import { CircuitBreaker, type BreakerSnapshot } from '../../src/admission/webhook/breaker.ts';

describe('circuit breaker', () => {
  it('opens after the threshold, fails fast during the cool-down, lets one trial through half-open, closes on success', () => {
    let now = 1_000_000;
    const changes: BreakerSnapshot[] = [];
    const b = new CircuitBreaker({ failureThreshold: 3, coolDownMs: 10_000 }, (s) => changes.push(s), () => now);
    for (let i = 0; i < 2; i++) {
      expect(b.tryAcquire()).toBe(true);
      b.failure('boom');
    }
    expect(b.snapshot().state).toBe('closed');
    // A success in between resets the count.
    expect(b.tryAcquire()).toBe(true);
    b.success();
    for (let i = 0; i < 3; i++) {
      expect(b.tryAcquire()).toBe(true);
      b.failure(`boom ${i}`);
    }
    expect(b.snapshot()).toMatchObject({ state: 'open', consecutiveFailures: 3, lastError: 'boom 2' });
    now += 9_999;
    expect(b.tryAcquire()).toBe(false);
    now += 1;
    expect(b.tryAcquire()).toBe(true);
    expect(b.snapshot().state).toBe('half-open');
    // Only one trial at a time.
    expect(b.tryAcquire()).toBe(false);
    b.success();
    expect(b.snapshot()).toEqual({ state: 'closed', consecutiveFailures: 0 });
    expect(changes.map((c) => c.state)).toEqual(['open', 'half-open', 'closed']);
  });

  it('a failed trial opens it again for a whole cool-down', () => {
    let now = 0;
    const b = new CircuitBreaker({ failureThreshold: 1, coolDownMs: 100 }, undefined, () => now);
    b.tryAcquire();
    b.failure('x');
    now = 100;
    expect(b.tryAcquire()).toBe(true);
    b.failure('y');
    expect(b.snapshot().state).toBe('open');
    now = 150;
    expect(b.tryAcquire()).toBe(false);
    now = 200;
    expect(b.tryAcquire()).toBe(true);
  });
});
