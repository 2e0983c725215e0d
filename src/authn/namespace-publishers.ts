/**
 * Two kube-controller-manager controllers that put identity material in every namespace, run
 * in-process because clients and tests written against kube expect their output:
 * - the service-account controller keeps a `default` ServiceAccount in every active namespace;
 * - the root-CA publisher keeps the `kube-root-ca.crt` ConfigMap (`ca.crt`: the CA that verifies
 *   this server) in every active namespace, restoring its content when changed.
 * Both sweep the watch caches (a map lookup per namespace) and write only what is missing or
 * wrong; terminating namespaces are left alone, so namespace deletion can finish.
 */
import { PeriodicSweep } from '../controllers/periodic-sweep.ts';
import { X509Certificate } from 'node:crypto';
import { ApiError } from '../api/status-errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const DEFAULT_SERVICE_ACCOUNT = 'default';
const DESCRIPTION_KEY = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

function certificateBlocks(pem: string | undefined): string[] {
  return pem?.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

function isCertificate(block: string): boolean {
  try {
    new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

function controllerContext(): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: 'kube-controller-manager', subresource: '' };
}

function activeNamespaces(namespaces: ResourceStore): string[] {
  const out: string[] = [];
  for (const e of namespaces.cache.list().entries) {
    const ns = e.value;
    if (ns.metadata?.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') continue;
    out.push(ns.metadata!.name!);
  }
  return out;
}

/**
 * Create-if-absent; a conflict (someone created it meanwhile) or a vanished namespace is fine.
 * The namespace is read consistently first: the cache may not show yet that its deletion began,
 * and an object created then would hold the deletion up (kube's lifecycle admission refuses it).
 */
async function createQuietly(namespaces: ResourceStore, store: ResourceStore, namespace: string, obj: KubeObject): Promise<boolean> {
  try {
    const ns = (await namespaces.get('', namespace, '')).value;
    if (ns.metadata?.deletionTimestamp) return false;
    await store.create(namespace, obj, controllerContext());
    return true;
  } catch (err) {
    if (err instanceof ApiError && (err.code === 409 || err.code === 404 || err.code === 403)) return false;
    throw err;
  }
}

export class NamespacePublishers {
  private readonly loop: PeriodicSweep;
  private namespaceWatch?: { close(): void };

  private readonly rootCaBlock: string;

  constructor(
    private readonly stores: { readonly namespaces: ResourceStore; readonly serviceAccounts?: ResourceStore; readonly configMaps?: ResourceStore },
    private readonly rootCa: string,
    intervalMs = 250,
  ) {
    this.loop = new PeriodicSweep('namespace publishers', intervalMs, () => this.sync());
    this.rootCaBlock = certificateBlocks(rootCa)[0] ?? rootCa;
  }

  start(): void {
    this.loop.start();
    // A new namespace gets its objects at once, as kube-controller-manager's informers give them;
    // the sweep catches deletions and edits of the objects themselves.
    const namespaces = this.stores.namespaces.cache;
    this.namespaceWatch = namespaces.watch(
      { fromRevision: namespaces.revision },
      {
        onEvent: (ev) => {
          if (ev.type === 'ADDED') this.loop.trigger();
        },
        onError: () => {},
      },
    );
  }

  stop(): void {
    this.loop.stop();
    this.namespaceWatch?.close();
  }

  /** One pass over every active namespace; returns how many objects were written. */
  async sync(): Promise<number> {
    let written = 0;
    const { serviceAccounts: sas, configMaps: cms } = this.stores;
    for (const ns of activeNamespaces(this.stores.namespaces)) {
      if (sas && !sas.cache.get(sas.key(ns, DEFAULT_SERVICE_ACCOUNT))) {
        if (await createQuietly(this.stores.namespaces, sas, ns, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace: ns } })) written++;
      }
      if (cms) {
        const current = cms.cache.get(cms.key(ns, ROOT_CA_CONFIGMAP))?.value;
        if (!current) {
          const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace: ns, annotations: { [DESCRIPTION_KEY]: DESCRIPTION } }, data: { 'ca.crt': this.rootCa } };
          if (await createQuietly(this.stores.namespaces, cms, ns, cm)) written++;
        } else if (!this.upToDate(current)) {
          if (await this.restore(cms, ns)) written++;
        }
      }
    }
    return written;
  }

  /**
   * kube's publisher compares the data and the description annotation. Here `ca.crt` is current
   * when it holds this server's CA among others: replicas sharing a store with different CAs
   * (each running this publisher) then converge on a bundle of all of them instead of fighting.
   */
  private upToDate(cm: KubeObject): boolean {
    const data = (cm.data ?? {}) as Record<string, string>;
    return Object.keys(data).length === 1 && certificateBlocks(data['ca.crt']).includes(this.rootCaBlock) && cm.metadata?.annotations?.[DESCRIPTION_KEY] === DESCRIPTION;
  }

  /** The bundle to write over `current`: its valid certificates that are not ours, then ours. */
  private bundleOver(current: string | undefined): string {
    const others = certificateBlocks(current).filter((b) => b !== this.rootCaBlock && isCertificate(b));
    return others.length === 0 ? this.rootCa : `${others.join('\n')}\n${this.rootCa}`;
  }

  private async restore(cms: ResourceStore, ns: string): Promise<boolean> {
    try {
      await cms.update(
        ns,
        ROOT_CA_CONFIGMAP,
        (current) => {
          if (!current) throw new ApiError(404, 'NotFound', `configmaps "${ROOT_CA_CONFIGMAP}" not found`, {});
          current.data = { 'ca.crt': this.bundleOver((current.data as Record<string, string> | undefined)?.['ca.crt']) };
          current.metadata = { ...current.metadata, annotations: { ...(current.metadata?.annotations ?? {}), [DESCRIPTION_KEY]: DESCRIPTION } };
          delete current.metadata.resourceVersion;
          return current;
        },
        controllerContext(),
        { allowCreate: false, subresource: '' },
      );
      return true;
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return false;
      throw err;
    }
  }
}
