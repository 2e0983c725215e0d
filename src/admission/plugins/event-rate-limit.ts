/**
 * EventRateLimit (kube's plugin/pkg/admission/eventratelimit): token buckets that refuse core
 * Event writes beyond a rate, per server, namespace, user, or event source and object, configured
 * by an `eventratelimit.admission.k8s.io/v1alpha1` Configuration. Refusals are 429.
 */
import { ApiError } from '../../api/status-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginDeps } from '../chain.ts';
import { AdmissionConfigError } from '../config-file.ts';

type LimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';
const limitTypes: readonly LimitType[] = ['Server', 'Namespace', 'User', 'SourceAndObject'];

export interface EventLimit {
  readonly type: LimitType;
  readonly qps: number;
  readonly burst: number;
  readonly cacheSize: number;
}

/** kube's default cache size for the keyed limit types. */
const DEFAULT_CACHE_SIZE = 4096;

/** Parses and validates the Configuration with kube's messages. */
export function parseEventRateLimitConfig(config: unknown): EventLimit[] {
  const c = (config ?? {}) as { apiVersion?: string; kind?: string; limits?: unknown };
  if (config === undefined) throw new AdmissionConfigError('EventRateLimit requires a configuration (eventratelimit.admission.k8s.io/v1alpha1 Configuration) in --admission-control-config-file');
  if (c.kind !== 'Configuration' || c.apiVersion !== 'eventratelimit.admission.k8s.io/v1alpha1') {
    throw new AdmissionConfigError(`EventRateLimit configuration: expected eventratelimit.admission.k8s.io/v1alpha1, Kind=Configuration, got ${c.apiVersion ?? ''}, Kind=${c.kind ?? ''}`);
  }
  const raw = Array.isArray(c.limits) ? (c.limits as Record<string, unknown>[]) : [];
  const problems: string[] = [];
  if (raw.length === 0) problems.push('limits: Required value: must not be empty');
  const limits = raw.map((l, i) => {
    const type = String(l.type ?? '') as LimitType;
    if (!limitTypes.includes(type)) problems.push(`limits[${i}].type: Unsupported value: ${JSON.stringify(type)}: supported values: ${limitTypes.map((t) => JSON.stringify(t)).join(', ')}`);
    const qps = Number(l.qps ?? 0);
    const burst = Number(l.burst ?? 0);
    if (!(qps > 0)) problems.push(`limits[${i}].qps: Invalid value: ${qps}: must be positive`);
    if (!(burst > 0)) problems.push(`limits[${i}].burst: Invalid value: ${burst}: must be positive`);
    const cacheSize = l.cacheSize === undefined ? DEFAULT_CACHE_SIZE : Number(l.cacheSize);
    if (type !== 'Server' && cacheSize < 0) problems.push(`limits[${i}].cacheSize: Invalid value: ${cacheSize}: must not be negative`);
    return { type, qps, burst, cacheSize: cacheSize > 0 ? cacheSize : DEFAULT_CACHE_SIZE };
  });
  if (problems.length > 0) throw new AdmissionConfigError(`EventRateLimit configuration is invalid: ${problems.join('; ')}`);
  return limits;
}

/** A token bucket (client-go's flowcontrol.NewTokenBucketRateLimiter, TryAccept). */
class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  tryAccept(): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.qps);
    this.last = t;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** One limit: a bucket per key, the least recently used dropped past the cache size. */
class Enforcer {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    readonly limit: EventLimit,
    private readonly now: () => number,
  ) {}

  key(a: AdmissionAttributes): string {
    switch (this.limit.type) {
      case 'Server':
        return '';
      case 'Namespace':
        return a.namespace;
      case 'User':
        return a.userInfo.username;
      case 'SourceAndObject': {
        const e = (a.object ?? {}) as KubeObject & { source?: Record<string, string>; involvedObject?: Record<string, string> };
        const io = e.involvedObject ?? {};
        return [e.source?.component, e.source?.host, io.kind, io.namespace, io.name, io.uid, io.apiVersion].map((v) => v ?? '').join('');
      }
    }
  }

  accept(a: AdmissionAttributes): string | undefined {
    const key = this.key(a);
    let bucket = this.buckets.get(key);
    if (bucket) this.buckets.delete(key);
    else bucket = new TokenBucket(this.limit.qps, this.limit.burst, this.now);
    this.buckets.set(key, bucket);
    if (this.limit.type !== 'Server' && this.buckets.size > this.limit.cacheSize) this.buckets.delete(this.buckets.keys().next().value as string);
    return bucket.tryAccept() ? undefined : `limit reached on type ${this.limit.type} for key ${key}`;
  }
}

export function eventRateLimit(deps: AdmissionPluginDeps, now: () => number = Date.now): AdmissionPlugin {
  const enforcers = parseEventRateLimitConfig(deps.config).map((l) => new Enforcer(l, now));
  return {
    name: 'EventRateLimit',
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    validate(a) {
      // Only core Events, and never dry runs (kube's Validate).
      if (a.kind.group !== '' || a.kind.kind !== 'Event' || a.dryRun) return;
      const errs = enforcers.map((e) => e.accept(a)).filter((e): e is string => e !== undefined);
      if (errs.length === 0) return;
      const message = errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
      throw new ApiError(429, 'TooManyRequests', `Too many requests: ${message}`);
    },
  };
}
