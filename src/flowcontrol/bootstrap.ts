/**
 * The v1.32 mandatory and suggested API Priority and Fairness configuration objects
 * (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap), and kube's configuration producer, which
 * keeps them in storage: every start creates the missing ones and updates those whose
 * `apf.kubernetes.io/autoupdate-spec` annotation says so (absent: only while generation is 1,
 * that is, nobody edited them); mandatory objects are always brought back to their fixed spec
 * (the exempt level keeps its tunable `exempt` settings); objects that carry the annotation
 * `true` but are no longer part of the configuration are deleted.
 */
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/status-errors.ts';
import type { ResourceStore, WriteContext } from '../registry/resource-store.ts';
import { semanticEqual } from '../api/validation/equality.ts';
import { cachedCurrent } from '../registry/cached-current.ts';

export const AUTOUPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';
export const PRODUCER_MANAGER = 'api-priority-and-fairness-config-producer-v1';
const API_VERSION = 'flowcontrol.apiserver.k8s.io/v1';

type Subject = Record<string, unknown>;
const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
const user = (name: string): Subject => ({ kind: 'User', user: { name } });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { namespace, name } });
const ALL_RESOURCES = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };
const ALL_NON_RESOURCES = { verbs: ['*'], nonResourceURLs: ['*'] };
const AUTHENTICATED_OR_NOT = [group('system:unauthenticated'), group('system:authenticated')];

function flowSchema(name: string, priorityLevel: string, matchingPrecedence: number, distinguisher: 'ByUser' | 'ByNamespace' | undefined, rules: Record<string, unknown>[]): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: { name, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

function limitedLevel(name: string, nominalConcurrencyShares: number, lendablePercent: number, queuing?: { queues: number; handSize: number; queueLengthLimit: number }): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    spec: {
      type: 'Limited',
      limited: { nominalConcurrencyShares, lendablePercent, limitResponse: queuing ? { type: 'Queue', queuing } : { type: 'Reject' } },
    },
  };
}

const everything = (subjects: Subject[]) => [{ subjects, resourceRules: [ALL_RESOURCES], nonResourceRules: [ALL_NON_RESOURCES] }];

export const MANDATORY_PRIORITY_LEVELS: readonly KubeObject[] = [
  {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'exempt', annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } },
    spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  },
  limitedLevel('catch-all', 5, 0),
];

export const MANDATORY_FLOW_SCHEMAS: readonly KubeObject[] = [
  flowSchema('exempt', 'exempt', 1, undefined, everything([group('system:masters')])),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', everything(AUTHENTICATED_OR_NOT)),
];

const q = (queues: number, handSize: number) => ({ queues, handSize, queueLengthLimit: 50 });

export const SUGGESTED_PRIORITY_LEVELS: readonly KubeObject[] = [
  limitedLevel('system', 30, 33, q(64, 6)),
  limitedLevel('node-high', 40, 25, q(64, 6)),
  limitedLevel('leader-election', 10, 0, q(16, 4)),
  limitedLevel('workload-high', 40, 50, q(128, 6)),
  limitedLevel('workload-low', 100, 90, q(128, 6)),
  limitedLevel('global-default', 20, 50, q(128, 6)),
];

const kubeSystemServiceAccounts = serviceAccount('kube-system', '*');

export const SUGGESTED_FLOW_SCHEMAS: readonly KubeObject[] = [
  flowSchema('probes', 'exempt', 2, undefined, [{ subjects: AUTHENTICATED_OR_NOT, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] }]),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', [
    {
      subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler'), kubeSystemServiceAccounts],
      resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] }],
    },
  ]),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', [
    {
      subjects: [user('system:kube-controller-manager'), serviceAccount('kube-system', 'endpoint-controller'), serviceAccount('kube-system', 'endpointslicemirroring-controller')],
      resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints'], namespaces: ['*'] }],
    },
  ]),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', [
    {
      subjects: [kubeSystemServiceAccounts],
      resourceRules: [
        { verbs: ['get', 'create', 'update'], apiGroups: [''], resources: ['endpoints', 'configmaps'], namespaces: ['*'] },
        { verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
      ],
    },
  ]),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', [
    {
      subjects: [group('system:nodes')],
      resourceRules: [
        { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: ['*'] },
        { verbs: ['*'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] },
      ],
    },
  ]),
  flowSchema('system-nodes', 'system', 500, 'ByUser', everything([group('system:nodes')])),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', everything([user('system:kube-controller-manager')])),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', everything([user('system:kube-scheduler')])),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', everything([kubeSystemServiceAccounts])),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', everything([group('system:serviceaccounts')])),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', everything(AUTHENTICATED_OR_NOT)),
];

function producerContext(): WriteContext {
  return { dryRun: false, warnings: [], now: new Date(), manager: PRODUCER_MANAGER };
}

/** kube's shouldUpdateSpec: the annotation decides; without a valid one, only an object nobody edited (generation 1). */
function autoUpdates(obj: KubeObject): boolean {
  const v = obj.metadata?.annotations?.[AUTOUPDATE_ANNOTATION];
  if (v !== undefined && /^(1|t|T|TRUE|true|True)$/.test(v)) return true;
  if (v !== undefined && /^(0|f|F|FALSE|false|False)$/.test(v)) return false;
  return (obj.metadata?.generation ?? 1) === 1;
}

/** The revised object, or undefined when the stored one is as it should be. */
function revised(current: KubeObject, want: KubeObject, mandatory: boolean): KubeObject | undefined {
  if (!mandatory && !autoUpdates(current)) return undefined;
  let spec = want.spec as Record<string, unknown>;
  // The exempt level's settings are the user's to tune; only its type is fixed.
  if (mandatory && want.kind === 'PriorityLevelConfiguration' && want.metadata?.name === 'exempt') {
    const exempt = (current.spec as Record<string, unknown> | undefined)?.exempt;
    spec = { ...spec, ...(exempt ? { exempt } : {}) };
  }
  const annotated = current.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === 'true';
  if (annotated && semanticEqual(current.spec, spec)) return undefined;
  const next = structuredClone(current);
  next.spec = structuredClone(spec);
  next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, [AUTOUPDATE_ANNOTATION]: 'true' } };
  return next;
}

async function ensureOne(store: ResourceStore, want: KubeObject, mandatory: boolean): Promise<void> {
  const name = want.metadata!.name!;
  // Already as it should be (every start after the first, every periodic pass): nothing to write.
  const cached = cachedCurrent(store, '', name);
  if (cached && revised(cached, want, mandatory) === undefined) return;
  try {
    await store.create('', structuredClone(want), producerContext());
    return;
  } catch (err) {
    if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
  }
  await store.update(
    '',
    name,
    (current) => (current ? (revised(current, want, mandatory) ?? current) : structuredClone(want)),
    producerContext(),
    { allowCreate: true, subresource: '' },
  );
}

/** Objects that say they follow the bootstrap configuration but are no longer part of it. */
async function removeUnwanted(store: ResourceStore, wanted: ReadonlySet<string>): Promise<void> {
  for (const e of store.cache.list().entries) {
    if (e.corrupt) continue;
    const name = e.value.metadata?.name ?? '';
    if (wanted.has(name) || e.value.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] !== 'true') continue;
    try {
      await store.delete('', name, { preconditions: { resourceVersion: e.value.metadata?.resourceVersion } }, producerContext());
    } catch (err) {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}

/** Ensures the bootstrap configuration; returns the failures (logged by the caller, retried on the next pass). */
export async function ensureBootstrapConfiguration(stores: { flowSchemas: ResourceStore; priorityLevels: ResourceStore }): Promise<Error[]> {
  const failures: Error[] = [];
  // Each phase all at once: writes issued together are committed together (one transaction and
  // one fsync for a phase at a first start, instead of one per object, which kept /readyz waiting).
  const run = (store: ResourceStore, objects: readonly KubeObject[], mandatory: boolean) =>
    objects.map((want) => ensureOne(store, want, mandatory).catch((err: unknown) => void failures.push(err as Error)));
  // Levels first, so no schema dangles for a moment.
  await Promise.all([...run(stores.priorityLevels, MANDATORY_PRIORITY_LEVELS, true), ...run(stores.priorityLevels, SUGGESTED_PRIORITY_LEVELS, false)]);
  await Promise.all([...run(stores.flowSchemas, MANDATORY_FLOW_SCHEMAS, true), ...run(stores.flowSchemas, SUGGESTED_FLOW_SCHEMAS, false)]);
  const names = (list: readonly KubeObject[]) => new Set(list.map((o) => o.metadata!.name!));
  try {
    await removeUnwanted(stores.flowSchemas, names([...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]));
    await removeUnwanted(stores.priorityLevels, names([...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]));
  } catch (err) {
    failures.push(err as Error);
  }
  return failures;
}
