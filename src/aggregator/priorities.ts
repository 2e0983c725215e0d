/**
 * The priorities kube-apiserver gives the APIServices of its own group/versions
 * (DefaultGenericAPIServicePriorities and kube-apiserver's table, v1.32): groupPriorityMinimum
 * orders `/apis`, versionPriority the versions inside a group. Group/versions kube does not list
 * are custom-resource groups: kube's CRD registration controller gives those 1000 and 100.
 */
export interface ApiServicePriority {
  readonly group: number;
  readonly version: number;
}

const table: Readonly<Record<string, ApiServicePriority>> = {
  '/v1': { group: 18000, version: 1 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'batch/v1': { group: 17400, version: 15 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'policy/v1': { group: 17100, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
  'flowcontrol.apiserver.k8s.io/v1beta3': { group: 16100, version: 19 },
  'internal.apiserver.k8s.io/v1alpha1': { group: 16000, version: 1 },
  'resource.k8s.io/v1beta1': { group: 15900, version: 9 },
  'storagemigration.k8s.io/v1alpha1': { group: 15800, version: 1 },
  // apiregistration.k8s.io serves itself: kube creates no APIService for it, but orders it first.
  'apiregistration.k8s.io/v1': { group: 18000, version: 15 },
};

/** kube's CRD registration controller: custom-resource groups sort after every built-in group. */
export const customResourcePriority: ApiServicePriority = { group: 1000, version: 100 };

/** The priority of a built-in group/version, or the custom-resource one. */
export function localPriority(group: string, version: string): ApiServicePriority {
  return table[`${group}/${version}`] ?? customResourcePriority;
}

/** Whether kube lists `group/version` among its own (an APIService labelled `onstart`). */
export function isKubeGroupVersion(group: string, version: string): boolean {
  return `${group}/${version}` in table;
}

/**
 * kube's version.CompareKubeAwareVersionStrings: GA before beta before alpha, higher numbers
 * first, anything not shaped like a kube version last, alphabetically. Negative: `a` first.
 */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    return { major: Number(m[1]), stage: m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, minor: Number(m[3] ?? 0) };
  };
  const pa = parse(a);
  const pb = parse(b);
  if (!pa && !pb) return a < b ? -1 : a > b ? 1 : 0;
  if (!pa) return 1;
  if (!pb) return -1;
  if (pa.stage !== pb.stage) return pb.stage - pa.stage;
  if (pa.major !== pb.major) return pb.major - pa.major;
  return pb.minor - pa.minor;
}
