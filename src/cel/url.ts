// The Kubernetes URL library's value: a URL as Go's url.ParseRequestURI parses it (absolute URI,
// opaque URI such as mailto:, or an absolute path), with the accessors kube-apiserver exposes
// (Scheme, Host, Hostname(), Port(), EscapedPath(), Query()) and net/url's error texts.

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

  /** url.ParseQuery: parameters by name, all values in order (pairs with a ';' are dropped, as Go does). */
  equals(o: KubeUrl): boolean {
    return this.scheme === o.scheme && this.host === o.host && this.escapedPath === o.escapedPath && this.rawQuery === o.rawQuery;
  }

  query(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const pair of this.rawQuery.split('&')) {
      if (pair === '' || pair.includes(';')) continue;
      const eq = pair.indexOf('=');
      const key = unescapeQuery(eq < 0 ? pair : pair.slice(0, eq));
      const value = unescapeQuery(eq < 0 ? '' : pair.slice(eq + 1));
      if (key === undefined || value === undefined) continue;
      (out[key] ??= []).push(value);
    }
    return out;
  }
}

class UrlError extends Error {}

const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** net/url's shouldEscape for paths and hosts. */
function shouldEscape(c: string, mode: 'path' | 'host' | 'zone'): boolean {
  if (/^[A-Za-z0-9]$/.test(c)) return false;
  if (mode === 'host' || mode === 'zone') {
    if ("!$&'()*+,;=:[]<>\"".includes(c)) return false;
  }
  if ('-_.~'.includes(c)) return false;
  if (mode === 'path' && '$&+,/:;=@'.includes(c)) return false;
  return true;
}

/** net/url's unescape for paths and hosts; throws Go's errors. */
function unescape(s: string, mode: 'path' | 'host' | 'zone'): string {
  const bytes: number[] = [];
  const src = Buffer.from(s, 'utf8');
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as number;
    if (c === 0x25) {
      const h1 = String.fromCharCode(src[i + 1] ?? 0);
      const h2 = String.fromCharCode(src[i + 2] ?? 0);
      if (!isHex(h1) || !isHex(h2)) throw new UrlError(`invalid URL escape ${JSON.stringify(src.subarray(i, Math.min(i + 3, src.length)).toString('latin1'))}`);
      const v = parseInt(h1 + h2, 16);
      if (mode === 'host' && v < 0x80 && `%${h1}${h2}` !== '%25') throw new UrlError(`invalid URL escape "%${h1}${h2}"`);
      bytes.push(v);
      i += 2;
      continue;
    }
    if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(String.fromCharCode(c), mode)) {
      throw new UrlError(`invalid character ${JSON.stringify(String.fromCharCode(c))} in host name`);
    }
    bytes.push(c);
  }
  return Buffer.from(bytes).toString('utf8');
}

function unescapeQuery(s: string): string | undefined {
  try {
    return unescape(s.replace(/\+/g, ' '), 'path');
  } catch {
    return undefined;
  }
}

function escapePath(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && !shouldEscape(c, 'path') ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function validEncodedPath(s: string): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]".includes(c) || c === '%') continue;
    if (c.charCodeAt(0) >= 0x80 || shouldEscape(c, 'path')) return false;
  }
  return true;
}

const validOptionalPort = (p: string): boolean => p === '' || /^:[0-9]*$/.test(p);

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${JSON.stringify(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, i), 'zone') + unescape(host.slice(i), 'host');
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0 && !validOptionalPort(host.slice(i))) throw new UrlError(`invalid port ${JSON.stringify(host.slice(i))} after host`);
  }
  return unescape(host, 'host');
}

function parseAuthority(authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at >= 0 && !/^[A-Za-z0-9\-._~!$&'()*+,;=:%@]*$/.test(authority.slice(0, at))) throw new UrlError('net/url: invalid userinfo');
  return host;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** Go's url.ParseRequestURI; throws `parse "<text>": <reason>` as *url.Error prints it. */
export function parseRequestUri(text: string): KubeUrl {
  return parseGo(text, true);
}

/**
 * kube's url(): checked with url.ParseRequestURI, then parsed with url.Parse (which drops a
 * #fragment and reads an authority after a leading "//").
 */
export function parseKubeUrlValue(text: string): KubeUrl {
  parseGo(text, true);
  const hash = text.indexOf('#');
  return parseGo(hash < 0 ? text : text.slice(0, hash), false);
}

function parseGo(text: string, viaRequest: boolean): KubeUrl {
  try {
    if (/[\x00-\x1f\x7f]/.test(text)) throw new UrlError('net/url: invalid control character in URL');
    if (text === '' && viaRequest) throw new UrlError('empty url');
    if (text === '*') return new KubeUrl('', '', '', '', '*', '');
    const [schemeText, afterScheme] = getScheme(text);
    const scheme = schemeText.toLowerCase();
    let rest = afterScheme;
    let rawQuery = '';
    if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
    else {
      const q = rest.indexOf('?');
      if (q >= 0) {
        rawQuery = rest.slice(q + 1);
        rest = rest.slice(0, q);
      }
    }
    if (!rest.startsWith('/')) {
      if (scheme !== '' || !viaRequest) return new KubeUrl(scheme, '', '', '', scheme !== '' ? '' : escapePath(rest), rawQuery);
      throw new UrlError('invalid URI for request');
    }
    let host = '';
    if ((scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
      let authority = rest.slice(2);
      rest = '';
      const slash = authority.indexOf('/');
      if (slash >= 0) {
        rest = authority.slice(slash);
        authority = authority.slice(0, slash);
      }
      host = parseAuthority(authority);
    }
    const path = unescape(rest, 'path');
    const rawPath = escapePath(path) === rest ? '' : rest;
    let escaped = escapePath(path);
    if (rawPath !== '' && validEncodedPath(rawPath) && unescape(rawPath, 'path') === path) escaped = rawPath;
    const [hostname, port] = splitHostPort(host);
    return new KubeUrl(scheme, host, hostname, port, escaped, rawQuery);
  } catch (error) {
    if (error instanceof UrlError) throw new Error(`parse ${JSON.stringify(text)}: ${error.message}`);
    throw error;
  }
}

/** Parses like url.ParseRequestURI; undefined when Go would reject the text. */
export function parseKubeUrl(text: string): KubeUrl | undefined {
  try {
    return parseRequestUri(text);
  } catch {
    return undefined;
  }
}
