/**
 * The two bootstrap-token controllers of kube-controller-manager, run in-process:
 * - the token cleaner deletes bootstrap-token Secrets in kube-system once they have expired;
 * - the bootstrap signer keeps `jws-kubeconfig-<token id>` keys in the `cluster-info` ConfigMap of
 *   kube-public: for each valid, unexpired token marked `usage-bootstrap-signing=true`, a detached
 *   JWS (HS256 keyed with the token secret, `kid` the token id) of the `kubeconfig` value; stale
 *   signatures are removed. kubeadm's join verifies them.
 * Both sweep the watch cache periodically and write only when something changes.
 */
import { PeriodicSweep } from '../controllers/periodic-sweep.ts';
import { createHmac } from 'node:crypto';
import { ApiError } from '../api/status-errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';
import { BOOTSTRAP_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE, bootstrapTokenExpired, secretData } from './bootstrap-token.ts';

export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const JWS_KEY_PREFIX = 'jws-kubeconfig-';

const ID = /^[a-z0-9]{6}$/;
const SECRET = /^[a-z0-9]{16}$/;

/** kube's ComputeDetachedSignature: the compact JWS of `content` with the payload left out. */
export function detachedSignature(content: string, tokenId: string, tokenSecret: string): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: tokenId })).toString('base64url');
  const payload = Buffer.from(content).toString('base64url');
  const sig = createHmac('sha256', tokenSecret).update(`${header}.${payload}`).digest('base64url');
  return `${header}..${sig}`;
}

function controllerContext(): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-controller-manager', subresource: '' };
}

function bootstrapSecrets(secrets: ResourceStore): KubeObject[] {
  return secrets.cache
    .list({ keyPrefix: secrets.listPrefix(BOOTSTRAP_NAMESPACE) })
    .entries.map((e) => e.value)
    .filter((s) => s.type === BOOTSTRAP_TOKEN_SECRET_TYPE);
}

/** The token id and secret a Secret offers for signing, as kube's validateSecretForSigning. */
function signingToken(secret: KubeObject, now: number): { id: string; secret: string } | undefined {
  const id = secretData(secret, 'token-id');
  const tokenSecret = secretData(secret, 'token-secret');
  if (!ID.test(id) || !SECRET.test(tokenSecret)) return undefined;
  if (secret.metadata?.name !== `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`) return undefined;
  if (bootstrapTokenExpired(secret, now)) return undefined;
  if (secretData(secret, 'usage-bootstrap-signing') !== 'true') return undefined;
  return { id, secret: tokenSecret };
}

abstract class Sweeper {
  private readonly loop: PeriodicSweep;

  constructor(name: string, intervalMs: number) {
    this.loop = new PeriodicSweep(name, intervalMs, () => this.sweep());
  }

  start(): void {
    this.loop.start();
  }

  stop(): void {
    this.loop.stop();
  }

  abstract sweep(): Promise<unknown>;
}

/** Deletes expired bootstrap-token Secrets (kube's tokencleaner). */
export class TokenCleaner extends Sweeper {
  constructor(
    private readonly secrets: ResourceStore,
    intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    super('bootstrap token cleaner', intervalMs);
  }

  /** One pass; returns the names deleted. */
  async sweep(): Promise<string[]> {
    const deleted: string[] = [];
    for (const s of bootstrapSecrets(this.secrets)) {
      if (s.metadata?.deletionTimestamp || !bootstrapTokenExpired(s, this.now())) continue;
      // An expiration that is not set never expires; one that does not parse counts as expired (kube).
      if (secretData(s, 'expiration') === '') continue;
      try {
        await this.secrets.delete(BOOTSTRAP_NAMESPACE, s.metadata!.name!, { preconditions: { uid: s.metadata?.uid } }, controllerContext());
        deleted.push(s.metadata!.name!);
      } catch (err) {
        if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
      }
    }
    return deleted;
  }
}

/** Signs cluster-info for every signing token (kube's bootstrapsigner). */
export class BootstrapSigner extends Sweeper {
  constructor(
    private readonly secrets: ResourceStore,
    private readonly configMaps: ResourceStore,
    intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    super('bootstrap signer', intervalMs);
  }

  /** One pass; returns whether cluster-info was rewritten. */
  async sweep(): Promise<boolean> {
    const cm = this.configMaps.cache.get(this.configMaps.key(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME))?.value;
    const data = cm?.data as Record<string, string> | undefined;
    const content = data?.kubeconfig;
    if (!cm || typeof content !== 'string') return false;
    const wanted = new Map<string, string>();
    for (const s of bootstrapSecrets(this.secrets)) {
      const token = signingToken(s, this.now());
      if (token) wanted.set(`${JWS_KEY_PREFIX}${token.id}`, detachedSignature(content, token.id, token.secret));
    }
    const present = Object.keys(data!).filter((k) => k.startsWith(JWS_KEY_PREFIX));
    const changed = present.some((k) => !wanted.has(k)) || [...wanted].some(([k, v]) => data![k] !== v);
    if (!changed) return false;
    try {
      await this.configMaps.update(
        CLUSTER_INFO_NAMESPACE,
        CLUSTER_INFO_NAME,
        (current) => {
          if (!current) throw new ApiError(404, 'NotFound', 'cluster-info is gone', {});
          const next: Record<string, string> = {};
          for (const [k, v] of Object.entries((current.data ?? {}) as Record<string, string>)) if (!k.startsWith(JWS_KEY_PREFIX)) next[k] = v;
          // The content may have changed since the cache was read: sign what is being written.
          const body = next.kubeconfig ?? '';
          for (const s of bootstrapSecrets(this.secrets)) {
            const token = signingToken(s, this.now());
            if (token) next[`${JWS_KEY_PREFIX}${token.id}`] = detachedSignature(body, token.id, token.secret);
          }
          current.data = next;
          delete current.metadata!.resourceVersion;
          return current;
        },
        controllerContext(),
        { allowCreate: false, subresource: '' },
      );
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return false;
      throw err;
    }
    return true;
  }
}
