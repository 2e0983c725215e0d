/**
 * The `extension-apiserver-authentication` ConfigMap in kube-system, as kube-apiserver's
 * cluster-authentication-trust controller keeps it: extension API servers read from it which
 * client CA and which front-proxy CA and headers to trust. What is already there is merged with
 * this server's own (CA bundles unioned, deduplicated, expired certificates dropped, header lists
 * unioned in order), so several servers sharing a store do not undo one another; the ConfigMap is
 * rewritten only when the merge differs, and recreated when deleted.
 */
import { PeriodicSweep } from '../controllers/periodic-sweep.ts';
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../api/status-errors.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';

export const AUTHENTICATION_INFO_NAMESPACE = 'kube-system';
export const AUTHENTICATION_INFO_NAME = 'extension-apiserver-authentication';

/** This server's authentication trust: PEM bundles and the front-proxy header names. */
export interface ClusterAuthenticationInfo {
  readonly clientCa?: string;
  readonly requestHeaderCa?: string;
  readonly requestHeaderUsernameHeaders?: readonly string[];
  readonly requestHeaderUidHeaders?: readonly string[];
  readonly requestHeaderGroupHeaders?: readonly string[];
  readonly requestHeaderExtraHeaderPrefixes?: readonly string[];
  readonly requestHeaderAllowedNames?: readonly string[];
}

/** kube allows five minutes of slack before dropping an expired CA from the bundle. */
const EXPIRY_SLACK_MS = 5 * 60_000;

/** The ConfigMap data for the merge of `existing` (the ConfigMap's data) and `ours`; keys sorted as Go writes a map. */
export function authenticationInfoData(existing: Readonly<Record<string, string>>, ours: ClusterAuthenticationInfo, now = Date.now()): Record<string, string> {
  const data: Record<string, string> = {};
  const clientCa = combineBundles([existing['client-ca-file'], ours.clientCa], now);
  if (clientCa !== '') data['client-ca-file'] = clientCa;
  const requestHeaderCa = combineBundles([existing['requestheader-client-ca-file'], ours.requestHeaderCa], now);
  if (requestHeaderCa !== '') {
    // Header names only mean something with a CA that vouches for the proxy.
    const list = (key: string, mine: readonly string[] | undefined) => JSON.stringify(unique([...parseList(existing[key]), ...(mine ?? [])]));
    data['requestheader-allowed-names'] = list('requestheader-allowed-names', ours.requestHeaderAllowedNames);
    data['requestheader-client-ca-file'] = requestHeaderCa;
    data['requestheader-extra-headers-prefix'] = list('requestheader-extra-headers-prefix', ours.requestHeaderExtraHeaderPrefixes);
    data['requestheader-group-headers'] = list('requestheader-group-headers', ours.requestHeaderGroupHeaders);
    data['requestheader-uid-headers'] = list('requestheader-uid-headers', ours.requestHeaderUidHeaders);
    data['requestheader-username-headers'] = list('requestheader-username-headers', ours.requestHeaderUsernameHeaders);
  }
  return data;
}

/** The certificates of the bundles, unexpired and deduplicated, re-encoded as Go's pem.Encode does. */
function combineBundles(bundles: readonly (string | undefined)[], now: number): string {
  const seen = new Set<string>();
  let out = '';
  for (const bundle of bundles) {
    for (const block of bundle?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
      let cert: X509Certificate;
      try {
        cert = new X509Certificate(block);
      } catch {
        continue;
      }
      if (Date.parse(cert.validTo) <= now - EXPIRY_SLACK_MS) continue;
      const der = cert.raw.toString('base64');
      if (seen.has(der)) continue;
      seen.add(der);
      out += `-----BEGIN CERTIFICATE-----\n${der.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
    }
  }
  return out;
}

function parseList(text: string | undefined): string[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}

function sameData(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** Keeps the ConfigMap current: a pass at start, then one every `intervalMs` (kube: on change and every minute). */
export class ClusterAuthenticationTrustController {
  private readonly loop: PeriodicSweep;

  constructor(
    private readonly configMaps: ResourceStore,
    private readonly info: ClusterAuthenticationInfo,
    intervalMs = 1000,
  ) {
    this.loop = new PeriodicSweep('cluster authentication trust', intervalMs, () => this.sync());
  }

  start(): void {
    this.loop.start({ now: true });
  }

  stop(): void {
    this.loop.stop();
  }

  /** One pass; returns whether the ConfigMap was written. */
  async sync(): Promise<boolean> {
    const cached = this.configMaps.cache.get(this.configMaps.key(AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME))?.value;
    const existing = (cached?.data ?? {}) as Record<string, string>;
    const want = authenticationInfoData(existing, this.info);
    if (cached && sameData(existing, want)) return false;
    const ctx: WriteContext = { dryRun: false, warnings: [], now: new Date(), manager: 'kube-apiserver', subresource: '' };
    try {
      await this.configMaps.update(
        AUTHENTICATION_INFO_NAMESPACE,
        AUTHENTICATION_INFO_NAME,
        (current) => {
          const data = authenticationInfoData((current?.data ?? {}) as Record<string, string>, this.info);
          if (!current) return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_INFO_NAME, namespace: AUTHENTICATION_INFO_NAMESPACE }, data };
          current.data = data;
          delete current.metadata!.resourceVersion;
          return current;
        },
        ctx,
        { allowCreate: true, subresource: '' },
      );
    } catch (err) {
      // A concurrent writer: the next pass merges with what it wrote.
      if (err instanceof ApiError && err.code === 409) return false;
      throw err;
    }
    return true;
  }
}
