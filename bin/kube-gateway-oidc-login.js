#!/usr/bin/env node
/**
 * kubectl credential plugin (kubeconfig `user.exec`) that hands kubectl an OIDC id_token for
 * kube-gateway's (or kube-apiserver's) OIDC authentication. Plain JavaScript with no
 * dependencies, so kubectl can run it with `node` from any checkout.
 *
 *   kube-gateway-oidc-login --issuer-url=https://issuer --client-id=kube [--client-secret=S]
 *       [--ca-file=PATH] [--refresh-token=T] [--cache-dir=DIR] [--scope="openid offline_access"]
 *
 * Reads the ExecCredential kubectl passes in KUBERNETES_EXEC_INFO (apiVersion
 * client.authentication.k8s.io/v1 or /v1beta1, spec.interactive) and prints an ExecCredential of
 * the same apiVersion with status.token and status.expirationTimestamp (the token's exp), so
 * kubectl reuses it until then. The id_token is cached in the cache dir (default
 * ~/.kube/cache/kube-gateway-oidc) with its refresh token; when it expires the refresh-token grant
 * gets a new one from the issuer's token endpoint (found through discovery). With no refresh
 * token, a person must log in: with a terminal (spec.interactive) the device authorization grant
 * is run, printing the verification URL and code on stderr; otherwise (interactiveMode: Never,
 * or no terminal) the plugin fails with a message saying so.
 */
import https from 'node:https';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const NAME = 'kube-gateway-oidc-login';
/** A cached token this close to its expiry is treated as expired. */
const EXPIRY_MARGIN_SECONDS = 10;

class PluginError extends Error {}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new PluginError(`unexpected argument ${JSON.stringify(arg)}`);
    const eq = arg.indexOf('=');
    const key = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new PluginError(`flag --${key} needs a value`);
    out[key] = value;
  }
  for (const required of ['issuer-url', 'client-id']) if (!out[required]) throw new PluginError(`--${required} is required`);
  return out;
}

/** The ExecCredential kubectl sent, or a v1beta1 default when run by hand. */
function execInfo() {
  const text = process.env.KUBERNETES_EXEC_INFO;
  if (!text) return { apiVersion: 'client.authentication.k8s.io/v1beta1', interactive: Boolean(process.stdin.isTTY) };
  let info;
  try {
    info = JSON.parse(text);
  } catch (err) {
    throw new PluginError(`KUBERNETES_EXEC_INFO is not JSON: ${err.message}`);
  }
  const apiVersion = info.apiVersion;
  if (apiVersion !== 'client.authentication.k8s.io/v1' && apiVersion !== 'client.authentication.k8s.io/v1beta1') {
    throw new PluginError(`unsupported ExecCredential apiVersion ${JSON.stringify(apiVersion)}`);
  }
  return { apiVersion, interactive: info.spec?.interactive === true };
}

function request(url, { ca, form } = {}) {
  return new Promise((resolve, reject) => {
    const body = form ? new URLSearchParams(form).toString() : undefined;
    const req = https.request(
      url,
      {
        method: body ? 'POST' : 'GET',
        ...(ca ? { ca } : {}),
        headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } : {}) },
        timeout: 30_000,
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${url} timed out`)));
    req.on('error', (err) => reject(new PluginError(`cannot reach ${url}: ${err.message}`)));
    req.end(body);
  });
}

function expiryOf(idToken) {
  try {
    const payload = JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString('utf8'));
    return typeof payload.exp === 'number' ? payload.exp : undefined;
  } catch {
    return undefined;
  }
}

function readCache(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

function writeCache(path, dir, entry) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(entry), { mode: 0o600 });
  renameSync(tmp, path);
}

async function discover(issuer, ca) {
  const r = await request(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { ca });
  if (r.status !== 200 || typeof r.json?.token_endpoint !== 'string') throw new PluginError(`the issuer ${issuer} has no usable discovery document (HTTP ${r.status})`);
  return r.json;
}

async function refresh(discovery, opts, refreshToken, ca) {
  const form = { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: opts['client-id'], ...(opts['client-secret'] ? { client_secret: opts['client-secret'] } : {}) };
  const r = await request(discovery.token_endpoint, { ca, form });
  if (r.status !== 200 || typeof r.json?.id_token !== 'string') {
    return { error: `the refresh token was refused by ${discovery.token_endpoint}: ${r.json?.error_description ?? r.json?.error ?? `HTTP ${r.status}`}` };
  }
  return { idToken: r.json.id_token, refreshToken: r.json.refresh_token ?? refreshToken };
}

async function deviceLogin(discovery, opts, ca) {
  if (typeof discovery.device_authorization_endpoint !== 'string') throw new PluginError('the issuer does not offer the device authorization grant; pass --refresh-token');
  const client = { client_id: opts['client-id'], ...(opts['client-secret'] ? { client_secret: opts['client-secret'] } : {}) };
  const start = await request(discovery.device_authorization_endpoint, { ca, form: { ...client, scope: opts.scope ?? 'openid offline_access' } });
  if (start.status !== 200 || typeof start.json?.device_code !== 'string') throw new PluginError(`device authorization failed: ${start.json?.error ?? `HTTP ${start.status}`}`);
  const { device_code: deviceCode, user_code: userCode } = start.json;
  process.stderr.write(`To log in, open ${start.json.verification_uri_complete ?? start.json.verification_uri} and enter the code ${userCode}\n`);
  let interval = (start.json.interval ?? 5) * 1000;
  const deadline = Date.now() + (start.json.expires_in ?? 600) * 1000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, interval));
    const r = await request(discovery.token_endpoint, { ca, form: { ...client, grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode } });
    if (r.status === 200 && typeof r.json?.id_token === 'string') return { idToken: r.json.id_token, refreshToken: r.json.refresh_token };
    if (r.json?.error === 'slow_down') interval += 5000;
    else if (r.json?.error !== 'authorization_pending') throw new PluginError(`login failed: ${r.json?.error_description ?? r.json?.error ?? `HTTP ${r.status}`}`);
  }
  throw new PluginError('login timed out');
}

function credential(apiVersion, idToken) {
  const exp = expiryOf(idToken);
  return {
    apiVersion,
    kind: 'ExecCredential',
    spec: {},
    status: { token: idToken, ...(exp !== undefined ? { expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d+Z$/, 'Z') } : {}) },
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const info = execInfo();
  const ca = opts['ca-file'] ? readFileSync(opts['ca-file'], 'utf8') : undefined;
  const dir = opts['cache-dir'] ?? join(homedir(), '.kube', 'cache', 'kube-gateway-oidc');
  const cachePath = join(dir, `${createHash('sha256').update(`${opts['issuer-url']}\0${opts['client-id']}`).digest('hex').slice(0, 32)}.json`);
  const cached = readCache(cachePath);
  const now = Date.now() / 1000;
  if (typeof cached.idToken === 'string' && (expiryOf(cached.idToken) ?? 0) > now + EXPIRY_MARGIN_SECONDS) return credential(info.apiVersion, cached.idToken);

  const discovery = await discover(opts['issuer-url'], ca);
  let refreshed;
  let refusal;
  for (const rt of [cached.refreshToken, opts['refresh-token']]) {
    if (typeof rt !== 'string' || rt === '') continue;
    const r = await refresh(discovery, opts, rt, ca);
    if (r.idToken) {
      refreshed = r;
      break;
    }
    refusal = r.error;
  }
  if (!refreshed) {
    if (!info.interactive || !process.stdin.isTTY) {
      throw new PluginError(
        `${refusal ? `${refusal}; ` : ''}a new login is needed, but this plugin is not running interactively (interactiveMode: Never, or no terminal): ` +
          `run kubectl in a terminal with interactiveMode IfAvailable, or pass --refresh-token`,
      );
    }
    refreshed = await deviceLogin(discovery, opts, ca);
  }
  writeCache(cachePath, dir, { idToken: refreshed.idToken, ...(refreshed.refreshToken ? { refreshToken: refreshed.refreshToken } : {}) });
  return credential(info.apiVersion, refreshed.idToken);
}

main().then(
  (cred) => process.stdout.write(`${JSON.stringify(cred)}\n`),
  (err) => {
    process.stderr.write(`${NAME}: ${err instanceof PluginError ? err.message : err.stack}\n`);
    process.exit(1);
  },
);
