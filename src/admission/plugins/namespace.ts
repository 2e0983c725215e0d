/**
 * The namespace plugins: NamespaceLifecycle (default on), NamespaceExists and
 * NamespaceAutoProvision, as kube-apiserver's plugin/pkg/admission/namespace/*.
 */
import { ApiError, errors, isApiError } from '../../api/status-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import type { ResourceStore } from '../../registry/resource-store.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginDeps } from '../chain.ts';

/** Namespaces kube's NamespaceLifecycle admission never lets be deleted. */
export const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

const namespacesGr = { group: '', resource: 'namespaces' };

function isNamespaceKind(a: AdmissionAttributes): boolean {
  return a.kind.group === '' && a.kind.kind === 'Namespace';
}

/** The access reviews kube's lifecycle plugin lets through whatever their namespace (answering would leak it). */
function isAccessReview(a: AdmissionAttributes): boolean {
  return a.resource.group === 'authorization.k8s.io' && (a.resource.resource === 'localsubjectaccessreviews' || a.resource.resource === 'subjectaccessreviews');
}

export function namespaceStoreOf(deps: AdmissionPluginDeps): ResourceStore {
  const s = deps.catalog.lookup('', 'v1', 'namespaces')?.store;
  if (!s) throw new Error('the namespaces resource type is missing');
  return s;
}

/** The namespace, from the watch cache, else by a consistent read (it may have been created an instant ago); undefined when missing. */
async function lookupNamespace(namespaces: ResourceStore, name: string): Promise<KubeObject | undefined> {
  const cached = namespaces.cache.get(namespaces.key('', name));
  if (cached) return cached.value;
  try {
    return (await namespaces.get('', name, '')).value;
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}

/**
 * NamespaceLifecycle: the immortal namespaces cannot be deleted; writes other than deletes need
 * their namespace to exist (404 naming the namespace); creates into a terminating namespace are
 * refused with kube's NamespaceTerminating cause.
 */
export function namespaceLifecycle(deps: AdmissionPluginDeps): AdmissionPlugin {
  const namespaces = namespaceStoreOf(deps);
  return {
    name: 'NamespaceLifecycle',
    handles: (op) => op === 'CREATE' || op === 'UPDATE' || op === 'DELETE',
    async validate(a) {
      if (a.namespace === '' && !isNamespaceKind(a)) return;
      if (isNamespaceKind(a)) {
        if (a.operation === 'DELETE' && immortalNamespaces.has(a.name)) throw errors.forbidden(gvrGroupResource(a), a.name, 'this namespace may not be deleted');
        return;
      }
      if (a.operation === 'DELETE' || isAccessReview(a)) return;
      const ns = await lookupNamespace(namespaces, a.namespace);
      if (!ns) throw errors.notFound(namespacesGr, a.namespace);
      if (a.operation !== 'CREATE' || !ns.metadata?.deletionTimestamp) return;
      const base = errors.forbidden(gvrGroupResource(a), a.name, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
      throw new ApiError(403, 'Forbidden', base.message, {
        ...base.details,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    },
  };
}

/** NamespaceExists: every write to a namespaced object needs its namespace to exist. */
export function namespaceExists(deps: AdmissionPluginDeps): AdmissionPlugin {
  const namespaces = namespaceStoreOf(deps);
  return {
    name: 'NamespaceExists',
    handles: (op) => op === 'CREATE' || op === 'UPDATE' || op === 'DELETE',
    async validate(a) {
      if (a.namespace === '' || isNamespaceKind(a)) return;
      if (!(await lookupNamespace(namespaces, a.namespace))) throw errors.notFound(namespacesGr, a.namespace);
    },
  };
}

/**
 * NamespaceAutoProvision: a create into a missing namespace creates the namespace first (as the
 * server, not as the requester). A dry run provisions nothing.
 */
export function namespaceAutoProvision(deps: AdmissionPluginDeps): AdmissionPlugin {
  const namespaces = namespaceStoreOf(deps);
  return {
    name: 'NamespaceAutoProvision',
    handles: (op) => op === 'CREATE',
    async admit(a) {
      if (a.namespace === '' || isNamespaceKind(a) || a.dryRun) return;
      if (await lookupNamespace(namespaces, a.namespace)) return;
      try {
        await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: a.namespace } }, { dryRun: false, warnings: [], now: new Date(), manager: 'kube-apiserver', subresource: '' });
      } catch (err) {
        if (!(isApiError(err) && err.reason === 'AlreadyExists')) throw err;
      }
    },
  };
}

/** The group/resource a refusal names (kube's a.GetResource().GroupResource()). */
export function gvrGroupResource(a: AdmissionAttributes): { group: string; resource: string } {
  return { group: a.resource.group, resource: a.resource.resource };
}
