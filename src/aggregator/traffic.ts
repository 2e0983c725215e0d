/**
 * The traffic contract of one APIService: how long the gateway waits for the backend's answer,
 * how many requests it lets through at once, and how large a request body may be. Declared by
 * annotations on the APIService (below), with defaults from flags. kube-aggregator has none of
 * these; they keep one slow or flooded extension server from taking the gateway's capacity.
 */
import type { KubeObject } from '../api/types.ts';

/** Annotation keys, documented in the README. */
export const TIMEOUT_ANNOTATION = 'gateway.kube-gateway.io/proxy-timeout';
export const MAX_INFLIGHT_ANNOTATION = 'gateway.kube-gateway.io/max-inflight';
export const MAX_BODY_ANNOTATION = 'gateway.kube-gateway.io/max-body-bytes';

export interface TrafficContract {
  /** Time to the backend's response headers for requests that are not long-running (watch, upgrades); 0: none. */
  readonly timeoutMs: number;
  /** Concurrent non-long-running requests; over it: 429 without touching the backend. 0: unlimited. */
  readonly maxInflight: number;
  /** Largest request body forwarded; larger: 413 as for local requests. */
  readonly maxBodyBytes: number;
}

export const DEFAULT_TRAFFIC: TrafficContract = { timeoutMs: 60_000, maxInflight: 400, maxBodyBytes: 3 * 1024 * 1024 };

/** Go duration strings as flags take them (`30s`, `1m30s`, `500ms`); undefined when malformed. */
export function parseDuration(text: string): number | undefined {
  const m = text.trim().match(/^((?:\d+(?:\.\d+)?(?:h|m|s|ms))+)$/);
  if (!m) return undefined;
  let ms = 0;
  for (const [, n, unit] of text.trim().matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s)/g)) {
    ms += Number(n) * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1);
  }
  return ms;
}

/**
 * The contract an APIService declares, falling back to `defaults` for an absent annotation and
 * for a malformed one (reported through `warn`, so a typo never takes the backend offline).
 */
export function trafficContractOf(obj: KubeObject, defaults: TrafficContract, warn: (msg: string) => void = () => undefined): TrafficContract {
  const a = obj.metadata?.annotations ?? {};
  const name = obj.metadata?.name ?? '';
  const int = (key: string, fallback: number): number => {
    const v = a[key];
    if (v === undefined) return fallback;
    if (/^\d+$/.test(v.trim())) return Number(v.trim());
    warn(`APIService ${name}: annotation ${key}=${JSON.stringify(v)} is not a non-negative integer; using ${fallback}`);
    return fallback;
  };
  let timeoutMs = defaults.timeoutMs;
  const t = a[TIMEOUT_ANNOTATION];
  if (t !== undefined) {
    const parsed = parseDuration(t);
    if (parsed === undefined) warn(`APIService ${name}: annotation ${TIMEOUT_ANNOTATION}=${JSON.stringify(t)} is not a duration (like 30s); using ${defaults.timeoutMs}ms`);
    else timeoutMs = parsed;
  }
  return { timeoutMs, maxInflight: int(MAX_INFLIGHT_ANNOTATION, defaults.maxInflight), maxBodyBytes: int(MAX_BODY_ANNOTATION, defaults.maxBodyBytes) };
}
