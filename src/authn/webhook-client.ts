/**
 * A webhook's connection from a kubeconfig-format file, as kube-apiserver reads
 * `--authentication-token-webhook-config-file`: the current context's (else the only) cluster
 * gives `server` and its CA (`certificate-authority` or `-data`), the user gives the client
 * certificate and key (file or `-data`) or a bearer token. Relative paths resolve against the
 * file's directory. The client POSTs JSON and reads JSON back, bounded in size and time.
 */
import https from 'node:https';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface WebhookConnection {
  readonly server: string;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly insecureSkipTlsVerify: boolean;
}

export class WebhookConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookConfigError';
  }
}

/** Reads the kubeconfig file; throws WebhookConfigError naming what is wrong. */
export async function loadWebhookKubeconfig(path: string): Promise<WebhookConnection> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new WebhookConfigError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = asRecord(parseYaml(text)) ?? {};
  } catch (err) {
    throw new WebhookConfigError(`${path}: ${(err as Error).message.split('\n')[0]}`);
  }
  const named = (list: unknown, field: string, name?: string): Record<string, unknown> | undefined => {
    const items = Array.isArray(list) ? list.map(asRecord).filter((x): x is Record<string, unknown> => x !== undefined) : [];
    const item = name !== undefined ? items.find((i) => i.name === name) : items.length === 1 ? items[0] : undefined;
    return asRecord(item?.[field]);
  };
  const current = typeof doc['current-context'] === 'string' ? doc['current-context'] : undefined;
  const context = current !== undefined ? named(doc.contexts, 'context', current) : named(doc.contexts, 'context');
  const cluster = named(doc.clusters, 'cluster', typeof context?.cluster === 'string' ? context.cluster : undefined);
  const user = named(doc.users, 'user', typeof context?.user === 'string' ? context.user : undefined) ?? {};
  if (!cluster) throw new WebhookConfigError(`${path}: no cluster found (a current-context naming one, or a single cluster)`);
  const server = typeof cluster.server === 'string' ? cluster.server : '';
  if (!/^https?:\/\//.test(server)) throw new WebhookConfigError(`${path}: clusters[].cluster.server must be an http(s) URL, got ${JSON.stringify(server)}`);
  const base = dirname(path);
  const fileOrData = async (fileField: string, dataField: string, from: Record<string, unknown>): Promise<string | undefined> => {
    const data = from[dataField];
    if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64').toString('utf8');
    const file = from[fileField];
    if (typeof file !== 'string' || file === '') return undefined;
    const p = isAbsolute(file) ? file : join(base, file);
    try {
      return await readFile(p, 'utf8');
    } catch (err) {
      throw new WebhookConfigError(`${path}: cannot read ${fileField} ${p}: ${(err as Error).message}`);
    }
  };
  const ca = await fileOrData('certificate-authority', 'certificate-authority-data', cluster);
  const cert = await fileOrData('client-certificate', 'client-certificate-data', user);
  const key = await fileOrData('client-key', 'client-key-data', user);
  if ((cert === undefined) !== (key === undefined)) throw new WebhookConfigError(`${path}: client-certificate and client-key must be given together`);
  const token = typeof user.token === 'string' && user.token !== '' ? user.token : undefined;
  return {
    server,
    ...(ca !== undefined ? { ca } : {}),
    ...(cert !== undefined ? { cert, key: key! } : {}),
    ...(token !== undefined ? { token } : {}),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
  };
}

const MAX_RESPONSE_BYTES = 1 << 20;

/** A JSON POST client for one webhook connection (kept-alive TLS). */
export class WebhookClient {
  private readonly agent: https.Agent | http.Agent;

  constructor(
    private readonly conn: WebhookConnection,
    private readonly timeoutMs = 30_000,
  ) {
    this.agent = conn.server.startsWith('https:')
      ? new https.Agent({
          keepAlive: true,
          ...(conn.ca !== undefined ? { ca: conn.ca } : {}),
          ...(conn.cert !== undefined ? { cert: conn.cert, key: conn.key } : {}),
          rejectUnauthorized: !conn.insecureSkipTlsVerify,
        })
      : new http.Agent({ keepAlive: true });
  }

  /** POSTs `body`; resolves with the status code and parsed JSON (undefined when not JSON). Rejects on transport errors. */
  post(body: unknown): Promise<{ status: number; json: unknown }> {
    const payload = Buffer.from(JSON.stringify(body));
    const lib = this.conn.server.startsWith('https:') ? https : http;
    return new Promise((resolve, reject) => {
      const req = lib.request(
        this.conn.server,
        {
          method: 'POST',
          agent: this.agent,
          timeout: this.timeoutMs,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'content-length': String(payload.length),
            ...(this.conn.token !== undefined ? { authorization: `Bearer ${this.conn.token}` } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) req.destroy(new Error('webhook response too large'));
            else chunks.push(c);
          });
          res.on('end', () => {
            let json: unknown;
            try {
              json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, json });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`Post "${this.conn.server}": context deadline exceeded`)));
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
