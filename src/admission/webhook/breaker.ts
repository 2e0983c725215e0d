/**
 * A circuit breaker per webhook, so a dead webhook cannot hold every matching request for its
 * timeout. Closed: calls go through; after `failureThreshold` consecutive failures (errors,
 * timeouts, garbage) it opens. Open: no call is made and the webhook's failurePolicy applies at
 * once. After `coolDownMs` it half-opens: one trial call goes through (the others still fail
 * fast); its success closes the breaker, its failure opens it for another cool-down.
 */

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerSettings {
  readonly failureThreshold: number;
  readonly coolDownMs: number;
}

export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = { failureThreshold: 5, coolDownMs: 30_000 };

export interface BreakerSnapshot {
  readonly state: BreakerState;
  readonly consecutiveFailures: number;
  /** When the breaker last opened (ISO time), while open or half-open. */
  readonly openedAt?: string;
  readonly lastError?: string;
}

export class CircuitBreaker {
  private state: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private trialInFlight = false;
  private lastError: string | undefined;

  constructor(
    private readonly settings: BreakerSettings,
    /** Told about every state change (the plugin publishes it on the configuration). */
    private readonly onChange: (s: BreakerSnapshot) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a call may be made now; a false answer means: apply the failure policy at once. */
  tryAcquire(): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open') {
      if (this.now() - this.openedAt < this.settings.coolDownMs) return false;
      this.transition('half-open');
    }
    // Half-open: exactly one trial at a time.
    if (this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  success(): void {
    this.trialInFlight = false;
    this.failures = 0;
    this.lastError = undefined;
    if (this.state !== 'closed') this.transition('closed');
  }

  failure(error: string): void {
    this.trialInFlight = false;
    this.failures++;
    this.lastError = error;
    if (this.state === 'half-open' || (this.state === 'closed' && this.failures >= this.settings.failureThreshold)) {
      this.openedAt = this.now();
      this.transition('open');
    }
  }

  snapshot(): BreakerSnapshot {
    return {
      state: this.state,
      consecutiveFailures: this.failures,
      ...(this.state !== 'closed' ? { openedAt: new Date(this.openedAt).toISOString() } : {}),
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  private transition(to: BreakerState): void {
    this.state = to;
    this.onChange(this.snapshot());
  }
}
