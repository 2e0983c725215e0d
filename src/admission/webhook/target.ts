/**
 * A webhook's `clientConfig` (admission and CRD conversion webhooks alike), read once when the
 * configuration changes, and turned into a dialable endpoint at each call:
 * - `url`: dialled as written;
 * - `service` (`namespace`, `name`, `port` default 443, `path`): named
 *   `https://NAME.NAMESPACE.svc:PORT/PATH` in messages and verified against that DNS name, dialled
 *   where the gateway's one service resolver (src/aggregator/service-resolver.ts) says at the
 *   moment of the call, as kube's webhook client resolves in its dialer. A reference that does
 *   not resolve fails the call with kube's text:
 *   `Post "https://hook.ns.svc:443/path?timeout=10s": service "hook" not found`.
 */
import { isIPv4, isIPv6 } from 'node:net';
import { webhookAddress, type ServiceResolver } from '../../aggregator/service-resolver.ts';
import { CallError, type WebhookEndpoint } from './client.ts';
import type { ClientCredentials } from './settings.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Everything about a webhook's endpoint but, for a service reference, where it is dialled. */
export interface WebhookTarget {
  readonly endpoint: Omit<WebhookEndpoint, 'dialHost' | 'dialPort'>;
  /** A URL webhook's fixed address, or the Service to resolve at each call. */
  readonly dial: { readonly host: string; readonly port: number } | { readonly service: { readonly namespace: string; readonly name: string; readonly port: number } };
}

/**
 * Reads `clientConfig`; a string (the reason) when it cannot be used. Every URL carries kube's
 * `?timeout=Ns`; `credentials` gives the client identity for a host (kube's kubeconfig lookup).
 */
export function webhookTarget(cc: unknown, timeoutSeconds: number, credentials?: (host: string, port: number) => ClientCredentials | undefined): WebhookTarget | string {
  const c = isObj(cc) ? cc : {};
  const ca = typeof c.caBundle === 'string' && c.caBundle !== '' ? Buffer.from(c.caBundle, 'base64').toString() : undefined;
  const withTimeout = (s: string) => `${s}${s.includes('?') ? '&' : '?'}timeout=${timeoutSeconds}s`;
  let host: string;
  let port: number;
  let path: string;
  // kube names a url webhook by its URL as written, a service one as https://name.namespace.svc:port/path.
  let named: string;
  // The host as kube's kubeconfig lookup sees it (an IPv6 host keeps its brackets).
  let credentialHost: string;
  let dial: WebhookTarget['dial'];
  // kube's client offers HTTP/2 only to URL webhooks on a loopback host (see client.ts).
  let http2Allowed = false;
  if (typeof c.url === 'string') {
    let u: URL;
    try {
      u = new URL(c.url);
    } catch {
      return `invalid webhook URL ${JSON.stringify(c.url)}`;
    }
    credentialHost = u.hostname;
    host = u.hostname.replace(/^\[|\]$/g, '');
    port = u.port ? Number(u.port) : 443;
    path = `${u.pathname || '/'}${u.search}`;
    named = c.url;
    dial = { host, port };
    http2Allowed = isLoopbackHost(host);
  } else if (isObj(c.service)) {
    const name = typeof c.service.name === 'string' ? c.service.name : '';
    const namespace = typeof c.service.namespace === 'string' ? c.service.namespace : '';
    host = `${name}.${namespace}.svc`;
    credentialHost = host;
    port = typeof c.service.port === 'number' ? c.service.port : 443;
    path = typeof c.service.path === 'string' && c.service.path !== '' ? c.service.path : '/';
    named = `https://${host}:${port}${path}`;
    dial = { service: { namespace, name, port } };
  } else {
    return 'the webhook has neither url nor service';
  }
  const creds = credentials?.(credentialHost, port);
  return {
    endpoint: {
      url: withTimeout(named),
      serverName: host,
      path: withTimeout(path),
      http2Allowed,
      ...(ca ? { ca } : {}),
      ...(creds?.clientCert ? { clientCert: creds.clientCert } : {}),
      ...(creds?.bearerToken ? { bearerToken: creds.bearerToken } : {}),
    },
    dial,
  };
}

/** Where the call goes now; a CallError with kube's wording (`Post "URL": ...`) when the service does not resolve. */
export function dialTarget(t: WebhookTarget, resolver: ServiceResolver): WebhookEndpoint | CallError {
  if (!('service' in t.dial)) return { ...t.endpoint, dialHost: t.dial.host, dialPort: t.dial.port };
  const { namespace, name, port } = t.dial.service;
  const at = webhookAddress(resolver, namespace, name, port);
  if (typeof at === 'string') return new CallError(`Post ${JSON.stringify(t.endpoint.url)}: ${at}`);
  return { ...t.endpoint, dialHost: at.host, dialPort: at.port };
}

/** Go's isLocalHost in k8s.io/apiserver's webhook client: `localhost` (any case) or a loopback IP. */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (isIPv4(host)) return host.startsWith('127.');
  if (!isIPv6(host)) return false;
  const v6 = host.toLowerCase();
  if (v6 === '::1' || /^0*:0*:0*:0*:0*:0*:0*:0*1$/.test(v6)) return true;
  // An IPv4-mapped address is loopback when its IPv4 part is (Go compares the 4-byte form); URLs
  // write it in hex (`::ffff:7f00:1`).
  const mapped = /^::ffff:(?:(\d+)\.\d+\.\d+\.\d+|([0-9a-f]{1,4}):[0-9a-f]{1,4})$/.exec(v6);
  if (!mapped) return false;
  return mapped[1] !== undefined ? mapped[1] === '127' : Number.parseInt(mapped[2]!, 16) >> 8 === 127;
}
