/**
 * kube-apiserver's metrics of authentication and authorization configuration:
 *
 * - `apiserver_{authentication,authorization}_config_controller_automatic_reloads_total` and
 *   `..._automatic_reload_last_timestamp_seconds`, labelled `status` (success, failure) and
 *   `apiserver_id_hash`, written each time `--authentication-config` / `--authorization-config`
 *   is re-read after a change (not at startup: kube records reloads only);
 * - `apiserver_authorization_decisions_total{type,name,decision}`: terminal decisions (allowed,
 *   denied) of each configured authorizer; no opinion is not counted, nor the `system:masters`
 *   shortcut, which sits in front of the authorizers in kube too.
 *
 * Authentication and authorization are built before the server's registry exists, so they record
 * into an AuthMetrics made first, which `register` later exposes on the registry.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type { Counter, Gauge, MetricsRegistry } from './registry.ts';

export type ReloadStatus = 'success' | 'failure';

interface ReloadRecord {
  readonly counts: Map<ReloadStatus, number>;
  readonly timestamps: Map<ReloadStatus, number>;
}

export class AuthMetrics {
  private readonly reloads = { authentication: newRecord(), authorization: newRecord() };
  private readonly decisions = new Map<string, number>();
  private registered: { decisions: Counter; reloads: Record<'authentication' | 'authorization', { total: Counter; last: Gauge }> } | undefined;

  constructor(readonly apiserverIdHash: string = idHashOf(apiserverId())) {}

  /** A configuration file was re-read: `success` when it was applied, `failure` when the last good one stays. */
  recordReload(subsystem: 'authentication' | 'authorization', status: ReloadStatus, nowSeconds = Date.now() / 1000): void {
    const r = this.reloads[subsystem];
    r.counts.set(status, (r.counts.get(status) ?? 0) + 1);
    r.timestamps.set(status, nowSeconds);
    const m = this.registered?.reloads[subsystem];
    m?.total.labels(status, this.apiserverIdHash).inc();
    m?.last.labels(status, this.apiserverIdHash).set(nowSeconds);
  }

  /** A terminal decision of the configured authorizer named `name` of type `type`. */
  recordDecision(type: string, name: string, decision: 'allowed' | 'denied'): void {
    if (this.registered) {
      this.registered.decisions.labels(type, name, decision).inc();
      return;
    }
    const key = `${type}\u0000${name}\u0000${decision}`;
    this.decisions.set(key, (this.decisions.get(key) ?? 0) + 1);
  }

  /** Exposes the families on `registry`, carrying over what was recorded before. */
  register(registry: MetricsRegistry): void {
    const reloadFamilies = (subsystem: 'authentication' | 'authorization') => ({
      total: registry.counter({
        name: `apiserver_${subsystem}_config_controller_automatic_reloads_total`,
        help: `Total number of automatic reloads of ${subsystem} configuration split by status and apiserver identity.`,
        labels: ['status', 'apiserver_id_hash'],
      }),
      last: registry.gauge({
        name: `apiserver_${subsystem}_config_controller_automatic_reload_last_timestamp_seconds`,
        help: `Timestamp of the last automatic reload of ${subsystem} configuration split by status and apiserver identity.`,
        labels: ['status', 'apiserver_id_hash'],
      }),
    });
    const decisions = registry.counter({
      name: 'apiserver_authorization_decisions_total',
      help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
      labels: ['type', 'name', 'decision'],
    });
    const reloads = { authentication: reloadFamilies('authentication'), authorization: reloadFamilies('authorization') };
    for (const subsystem of ['authentication', 'authorization'] as const) {
      const r = this.reloads[subsystem];
      for (const [status, n] of r.counts) reloads[subsystem].total.labels(status, this.apiserverIdHash).inc(n);
      for (const [status, t] of r.timestamps) reloads[subsystem].last.labels(status, this.apiserverIdHash).set(t);
    }
    for (const [key, n] of this.decisions) {
      const [type, name, decision] = key.split('\u0000') as [string, string, string];
      decisions.labels(type, name, decision).inc(n);
    }
    this.decisions.clear();
    this.registered = { decisions, reloads };
  }
}

function newRecord(): ReloadRecord {
  return { counts: new Map(), timestamps: new Map() };
}

/**
 * kube-apiserver's identity: `apiserver-` and a version-5 style UUID hashed (SHA-256) from the
 * host name (genericapiserver's default APIServerID), so several replicas on one host share it
 * exactly as kube's do.
 */
export function apiserverId(host: string = hostname()): string {
  const h = createHash('sha256').update(Buffer.alloc(16)).update(host).digest();
  const u = Buffer.from(h.subarray(0, 16));
  u[6] = (u[6]! & 0x0f) | 0x50;
  u[8] = (u[8]! & 0x3f) | 0x80;
  const hex = u.toString('hex');
  return `apiserver-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The `apiserver_id_hash` label value: `sha256:` and the hex SHA-256 of the identity. */
export function idHashOf(id: string): string {
  return `sha256:${createHash('sha256').update(id).digest('hex')}`;
}
