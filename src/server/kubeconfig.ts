/**
 * Kubeconfig files for clients of this server: one cluster, one user and one context, with the
 * CA and credentials embedded as base64 data so the file stands alone.
 */
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export interface KubeconfigOptions {
  /** The server URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;
  /** PEM of the CA that signed the serving certificate. */
  readonly caPem: string;
  /** Client certificate PEM; given together with keyPem. */
  readonly certPem?: string;
  /** Client private key PEM; given together with certPem. */
  readonly keyPem?: string;
  /** A bearer token, instead of or besides a client certificate. */
  readonly token?: string;
  /** Names inside the file; defaults `kube-gateway` and `admin`. */
  readonly clusterName?: string;
  readonly userName?: string;
  /** The context's default namespace. */
  readonly namespace?: string;
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/** Returns kubeconfig YAML for the given server and credentials; current-context is set to its one context. */
export function renderKubeconfig(opts: KubeconfigOptions): string {
  if ((opts.certPem === undefined) !== (opts.keyPem === undefined)) {
    throw new Error('kubeconfig: certPem and keyPem must be given together');
  }
  const clusterName = opts.clusterName ?? 'kube-gateway';
  const userName = opts.userName ?? 'admin';
  const contextName = `${userName}@${clusterName}`;

  const user: Record<string, string> = {};
  if (opts.certPem !== undefined && opts.keyPem !== undefined) {
    user['client-certificate-data'] = base64(opts.certPem);
    user['client-key-data'] = base64(opts.keyPem);
  }
  if (opts.token !== undefined) user.token = opts.token;

  const context: Record<string, string> = { cluster: clusterName, user: userName };
  if (opts.namespace !== undefined) context.namespace = opts.namespace;

  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: clusterName, cluster: { server: opts.server, 'certificate-authority-data': base64(opts.caPem) } }],
    users: [{ name: userName, user }],
    contexts: [{ name: contextName, context }],
    'current-context': contextName,
    preferences: {},
  };
  // Long base64 values must stay on one line: folding would still be valid YAML but is hard to read.
  return stringify(doc, { lineWidth: 0 });
}

/** Writes the admin kubeconfig to `path` (creating its directory) with mode 0600, replacing any old file atomically. */
export async function writeAdminKubeconfig(
  path: string,
  opts: { readonly server: string; readonly caPem: string; readonly certPem: string; readonly keyPem: string },
): Promise<void> {
  const text = renderKubeconfig(opts);
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, text, { mode: 0o600 });
  // writeFile's mode applies only to new files and is filtered by the umask; make it exact.
  await chmod(tmp, 0o600);
  await rename(tmp, path);
}
