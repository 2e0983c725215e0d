/**
 * The configuration of the two webhook plugins, from --admission-control-config-file: kube's
 * WebhookAdmissionConfiguration (`kubeConfigFile`: client credentials per webhook host) and the
 * gateway's own setting beside it (the circuit breaker). Webhooks given by service reference are
 * dialled where the gateway's service resolver says (target.ts), as in kube.
 *
 *   apiVersion: apiserver.config.k8s.io/v1
 *   kind: WebhookAdmissionConfiguration
 *   kubeConfigFile: /etc/gateway/webhook-clients.kubeconfig
 *   circuitBreaker: { failureThreshold: 5, coolDown: 30s }
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseGoDuration } from '../../schema/go-duration.ts';
import { AdmissionConfigError } from '../config-file.ts';
import { DEFAULT_BREAKER_SETTINGS, type BreakerSettings } from './breaker.ts';

export interface ClientCredentials {
  readonly clientCert?: { readonly cert: string; readonly key: string };
  readonly bearerToken?: string;
}

export interface WebhookSettings {
  /** Credentials by kubeconfig user name: `host:port`, `host`, `*.ns.svc` or `*`. */
  readonly credentials: ReadonlyMap<string, ClientCredentials>;
  readonly breaker: BreakerSettings;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = { credentials: new Map(), breaker: DEFAULT_BREAKER_SETTINGS };

function readRelative(dir: string, path: string): string {
  return readFileSync(isAbsolute(path) ? path : resolve(dir, path), 'utf8');
}

/** Client credentials of a kubeconfig's users, by user name. */
function loadKubeconfig(path: string): Map<string, ClientCredentials> {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new AdmissionConfigError(`unable to read webhook kubeConfigFile ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  const dir = resolve(path, '..');
  const out = new Map<string, ClientCredentials>();
  for (const u of ((doc as { users?: unknown[] })?.users ?? []) as Array<{ name?: string; user?: Record<string, string> }>) {
    if (!u?.name || !u.user) continue;
    const user = u.user;
    const cert = user['client-certificate-data'] ? Buffer.from(user['client-certificate-data'], 'base64').toString() : user['client-certificate'] ? readRelative(dir, user['client-certificate']) : undefined;
    const key = user['client-key-data'] ? Buffer.from(user['client-key-data'], 'base64').toString() : user['client-key'] ? readRelative(dir, user['client-key']) : undefined;
    const token = user.token ?? (user.tokenFile ? readRelative(dir, user.tokenFile).trim() : undefined);
    out.set(u.name, { ...(cert && key ? { clientCert: { cert, key } } : {}), ...(token ? { bearerToken: token } : {}) });
  }
  return out;
}

/** Reads the plugin's configuration (undefined: defaults). */
export function webhookSettings(config: unknown, configDir: string): WebhookSettings {
  if (config === undefined || config === null) return DEFAULT_WEBHOOK_SETTINGS;
  const c = config as { kind?: string; kubeConfigFile?: string; serviceResolution?: unknown; circuitBreaker?: { failureThreshold?: number; coolDown?: string } };
  if (c.kind !== undefined && c.kind !== 'WebhookAdmissionConfiguration' && c.kind !== 'WebhookAdmission') {
    throw new AdmissionConfigError(`webhook admission configuration: expected kind WebhookAdmissionConfiguration, got ${c.kind}`);
  }
  // The gateway's former per-plugin map: refused rather than ignored, so no webhook is silently dialled elsewhere.
  if (c.serviceResolution !== undefined) {
    throw new AdmissionConfigError(
      'webhook admission configuration: serviceResolution is no longer read: service references resolve through the gateway\'s service resolver (stored Services, --enable-aggregator-routing, --service-dns-routing, or --aggregator-service-address NAMESPACE/NAME=HOST[:PORT])',
    );
  }
  const credentials = c.kubeConfigFile ? loadKubeconfig(isAbsolute(c.kubeConfigFile) ? c.kubeConfigFile : resolve(configDir, c.kubeConfigFile)) : new Map();
  let coolDownMs = DEFAULT_BREAKER_SETTINGS.coolDownMs;
  if (c.circuitBreaker?.coolDown !== undefined) {
    try {
      coolDownMs = parseGoDuration(String(c.circuitBreaker.coolDown));
    } catch (err) {
      throw new AdmissionConfigError(`webhook admission configuration: circuitBreaker.coolDown: ${(err as Error).message}`);
    }
  }
  const failureThreshold = c.circuitBreaker?.failureThreshold ?? DEFAULT_BREAKER_SETTINGS.failureThreshold;
  if (!Number.isInteger(failureThreshold) || failureThreshold < 1) throw new AdmissionConfigError('webhook admission configuration: circuitBreaker.failureThreshold must be a positive integer');
  return {
    credentials,
    breaker: { failureThreshold, coolDownMs },
  };
}

/** The credentials for a webhook host, as kube's kubeconfig lookup: exact host:port, host, `*.rest`, then `*`. */
export function credentialsFor(settings: WebhookSettings, host: string, port: number): ClientCredentials | undefined {
  const c = settings.credentials;
  const dot = host.indexOf('.');
  return c.get(`${host}:${port}`) ?? c.get(host) ?? (dot > 0 ? c.get(`*${host.slice(dot)}`) : undefined) ?? c.get('*');
}
