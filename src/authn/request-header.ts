/**
 * Authenticating proxy (front proxy): a proxy that presents a client certificate signed by
 * --requestheader-client-ca-file (and, when --requestheader-allowed-names is set, with one of
 * those Common Names) may name the user in headers. Without such a certificate the headers
 * are ignored, never trusted. Header rules are kube's: the first non-empty username header
 * wins; every value of every group header is a group; `<prefix><key>` headers are extra, the
 * key lowercased and percent-decoded.
 */
import { createX509Authenticator } from './x509.ts';
import type { AuthRequest, RequestAuthenticator } from './types.ts';

export interface RequestHeaderOptions {
  /** PEM bundles of the proxy's CA (contents, not paths). */
  readonly clientCa: readonly string[];
  /** Common Names a proxy certificate may carry; empty: any. */
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
  readonly now?: () => number;
}

export function createRequestHeaderAuthenticator(opts: RequestHeaderOptions): RequestAuthenticator {
  // The proxy's certificate is verified exactly as client certificates are, against its own CA.
  const proxyVerifier = createX509Authenticator({ clientCa: opts.clientCa, ...(opts.now ? { now: opts.now } : {}) });
  const usernameHeaders = opts.usernameHeaders.map((h) => h.toLowerCase());
  const groupHeaders = opts.groupHeaders.map((h) => h.toLowerCase());
  const prefixes = opts.extraHeaderPrefixes.map((p) => p.toLowerCase());
  return {
    name: 'request-header',
    async authenticate(req) {
      const proxy = await proxyVerifier.authenticate(req);
      if (proxy.kind !== 'authenticated') return proxy;
      if (opts.allowedNames.length > 0 && !opts.allowedNames.includes(proxy.user.username)) {
        return { kind: 'rejected', reason: `x509: subject with cn=${proxy.user.username} is not in the allowed list` };
      }
      const lines = headerLines(req);
      const username = usernameHeaders.map((h) => valuesOf(lines, h).find((v) => v !== '')).find((v) => v !== undefined);
      if (username === undefined) return { kind: 'no-credentials' };
      const groups = groupHeaders.flatMap((h) => valuesOf(lines, h));
      const extra: Record<string, string[]> = {};
      for (const [name, value] of lines) {
        const prefix = prefixes.find((p) => name.startsWith(p));
        if (prefix === undefined) continue;
        const key = percentDecode(name.slice(prefix.length)).toLowerCase();
        (extra[key] ??= []).push(value);
      }
      return { kind: 'authenticated', user: { username, groups, extra } };
    },
  };
}

/** Every header line as [lowercase name, value], from the raw list when the request has one. */
function headerLines(req: AuthRequest): [string, string][] {
  const out: [string, string][] = [];
  const raw = req.rawHeaders;
  if (raw) {
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
    return out;
  }
  for (const [name, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const value of typeof v === 'string' ? [v] : v) out.push([name, value]);
  }
  return out;
}

function valuesOf(lines: readonly [string, string][], header: string): string[] {
  return lines.filter(([name]) => name === header).map(([, value]) => value);
}

/** Go's url.PathUnescape; a malformed escape leaves the key as it is, as kube does. */
function percentDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
