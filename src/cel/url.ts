// The Kubernetes URL library's value: a request URI as Go's url.ParseRequestURI accepts it
// (absolute URI, or an absolute path), with the accessors kube-apiserver exposes.

/** A parsed URL with the kube-apiserver accessor values precomputed. */
export class KubeUrl {
  readonly celTypeName = 'kubernetes.URL';
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly hostname: string,
    readonly port: string,
    readonly escapedPath: string,
    readonly rawQuery: string,
  ) {}

  /** Query parameters as a map from name to all its values, in order. */
  query(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [k, v] of new URLSearchParams(this.rawQuery)) (out[k] ??= []).push(v);
    return out;
  }
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Parses like url.ParseRequestURI; undefined when Go would reject the text. */
export function parseKubeUrl(text: string): KubeUrl | undefined {
  if (/[\s\x00-\x1f\x7f]/.test(text) || text.includes('#')) return undefined;
  if (text.startsWith('/')) {
    const q = text.indexOf('?');
    return new KubeUrl('', '', '', '', q < 0 ? text : text.slice(0, q), q < 0 ? '' : text.slice(q + 1));
  }
  const m = SCHEME.exec(text);
  if (m === null) return undefined;
  const scheme = m[0].slice(0, -1);
  const rest = text.slice(m[0].length);
  if (!rest.startsWith('//')) return undefined;
  const afterSlashes = rest.slice(2);
  const end = afterSlashes.search(/[/?]/);
  const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
  const tail = end < 0 ? '' : afterSlashes.slice(end);
  const host = authority.includes('@') ? authority.slice(authority.lastIndexOf('@') + 1) : authority;
  let hostname = host;
  let port = '';
  const v6 = /^\[([^\]]*)\](?::(\d*))?$/.exec(host);
  if (v6 !== null) {
    hostname = v6[1] ?? '';
    port = v6[2] ?? '';
  } else if (host.includes(':')) {
    const i = host.lastIndexOf(':');
    hostname = host.slice(0, i);
    port = host.slice(i + 1);
    if (!/^\d*$/.test(port) || hostname.includes(':')) return undefined;
  }
  const q = tail.indexOf('?');
  const path = q < 0 ? tail : tail.slice(0, q);
  return new KubeUrl(scheme, host, hostname, port, path, q < 0 ? '' : tail.slice(q + 1));
}
