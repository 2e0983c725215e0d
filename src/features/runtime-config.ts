/**
 * `--runtime-config`: which built-in API versions and resources are served, as kube-apiserver's
 * resourceconfig.MergeAPIResourceConfigs decides it. Keys are `<group>/<version>` or
 * `<group>/<version>/<resource>` (`api/v1` and `/v1` for the core group) with `=true|false`
 * (a bare key is true), and the matchers `api/all`, `api/ga`, `api/beta`, `api/alpha`, which take
 * exactly `true` or `false` and are applied first, in that order; then versions, then resources.
 *
 * Defaults as kube: stable versions on, alpha and beta versions off unless a type says it is on by
 * default (kube's beta versions from before v1.22). Custom resources and aggregated APIs are not
 * subject to it (their groups are not built-in, as in kube).
 */

/** Kube v1.32's built-in API groups: keys naming them are valid even when this server does not serve them. */
const KUBE_GROUPS = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

const MATCHERS = ['api/all', 'api/ga', 'api/beta', 'api/alpha'] as const;
type Matcher = (typeof MATCHERS)[number];

/** A `--runtime-config` kube would refuse; the message is kube's. */
export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigError';
  }
}

/** One built-in resource as the server registers it (served or not). */
export interface RegisteredResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** An alpha or beta version that kube serves by default (introduced before v1.22). */
  readonly enabledByDefault?: boolean;
}

export type VersionLevel = 'ga' | 'beta' | 'alpha';

/** kube's version matchers: `v1` is GA, a version containing `alpha` or `beta` is that level. */
export function versionLevel(version: string): VersionLevel {
  if (/^v\d+$/.test(version)) return 'ga';
  return version.includes('alpha') ? 'alpha' : 'beta';
}

/**
 * Parses the `--runtime-config` values as cliflag.ConfigurationMap does (comma-separated
 * `key[=value]`, repeated flags merge, later keys win). Keys stay as given.
 */
export function parseRuntimeConfig(flagValues: readonly string[]): ReadonlyMap<string, string> {
  const m = new Map<string, string>();
  for (const value of flagValues) {
    for (const part of value.split(',')) {
      if (part.trim() === '') continue;
      const eq = part.indexOf('=');
      m.set((eq === -1 ? part : part.slice(0, eq)).trim(), eq === -1 ? '' : part.slice(eq + 1).trim());
    }
  }
  return m;
}

/**
 * The keys' syntax and groups, checked before anything is registered (kube's options validation):
 * `runtime-config invalid key k`, `unknown api groups a,b`.
 */
export function validateRuntimeConfigKeys(overrides: ReadonlyMap<string, string>): void {
  const errs: string[] = [];
  const unknown: string[] = [];
  for (const key of overrides.keys()) {
    if ((MATCHERS as readonly string[]).includes(key) || key === 'v1') continue;
    const tokens = key.split('/');
    if (tokens.length < 2 || tokens.length > 3) {
      errs.push(`runtime-config invalid key ${key}`);
      continue;
    }
    const group = coreGroup(tokens[0]!);
    if (!KUBE_GROUPS.has(group) && !unknown.includes(group)) unknown.push(group);
  }
  if (unknown.length > 0) errs.push(`unknown api groups ${unknown.join(',')}`);
  if (errs.length === 1) throw new RuntimeConfigError(errs[0]!);
  if (errs.length > 1) throw new RuntimeConfigError(`[${errs.join(', ')}]`);
}

/** `api/v1` and `/v1` name the core group. */
function coreGroup(token: string): string {
  return token === 'api' ? '' : token;
}

/** Which built-in versions and resources are served; answers from a table built once at start. */
export class ApiEnablement {
  private constructor(
    private readonly versions: ReadonlyMap<string, boolean>,
    private readonly resources: ReadonlyMap<string, boolean>,
  ) {}

  /** Everything served (no runtime-config, every registered resource on). */
  static all(): ApiEnablement {
    return new ApiEnablement(new Map(), new Map());
  }

  /**
   * Resolves the overrides against the registered resources, as MergeAPIResourceConfigs. Throws
   * RuntimeConfigError with kube's messages: `invalid value api/all=x`, `invalid value of g/v: x,
   * err: strconv.ParseBool: ...`, `group version g/v that has not been registered`, `invalid key
   * g/v/R: group/version/resource and resource is always lowercase plural, not "R"`.
   */
  static resolve(overrides: ReadonlyMap<string, string>, registered: readonly RegisteredResource[]): ApiEnablement {
    validateRuntimeConfigKeys(overrides);
    const gvKey = (g: string, v: string) => `${g}/${v}`;
    // Defaults: stable versions on; alpha and beta off unless a resource of the version says otherwise.
    const versions = new Map<string, boolean>();
    const resources = new Map<string, boolean>();
    for (const r of registered) {
      const k = gvKey(r.group, r.version);
      const on = versionLevel(r.version) === 'ga';
      if (!versions.has(k)) versions.set(k, on);
      // kube enables such versions per resource (the version itself for those resources only).
      if (!on && r.enabledByDefault) {
        versions.set(k, true);
        resources.set(`${k}/${r.resource}`, true);
      }
    }
    const defaultOffResources = registered.filter((r) => versionLevel(r.version) !== 'ga' && !r.enabledByDefault);
    for (const r of defaultOffResources) if (versions.get(gvKey(r.group, r.version))) resources.set(`${gvKey(r.group, r.version)}/${r.resource}`, false);

    const matches: Record<Matcher, (v: string) => boolean> = {
      'api/all': () => true,
      'api/ga': (v) => versionLevel(v) === 'ga',
      'api/beta': (v) => versionLevel(v) === 'beta',
      'api/alpha': (v) => versionLevel(v) === 'alpha',
    };
    for (const m of MATCHERS) {
      const value = overrides.get(m);
      if (value === undefined) continue;
      if (value !== 'true' && value !== 'false') throw new RuntimeConfigError(`invalid value ${m}=${value}`);
      for (const k of versions.keys()) {
        if (!matches[m](k.slice(k.lastIndexOf('/') + 1))) continue;
        versions.set(k, value === 'true');
        // A version switched as a whole drops its per-resource defaults.
        for (const rk of [...resources.keys()]) if (rk.startsWith(`${k}/`)) resources.delete(rk);
      }
    }

    const registeredGroups = new Set(registered.map((r) => r.group));
    const versionPrefs: [string, boolean][] = [];
    const resourcePrefs: [string, boolean][] = [];
    for (const [key, value] of overrides) {
      if ((MATCHERS as readonly string[]).includes(key)) continue;
      const tokens = key === 'v1' ? ['', 'v1'] : key.split('/');
      if (tokens.length < 2 || tokens.length > 3) continue;
      const group = coreGroup(tokens[0]!);
      // A kube group this server does not serve: nothing to switch.
      if (!registeredGroups.has(group)) continue;
      const gv = gvKey(group, tokens[1]!);
      if (!versions.has(gv)) throw new RuntimeConfigError(`group version ${group === '' ? tokens[1] : `${group}/${tokens[1]}`} that has not been registered`);
      const enabled = value === '' ? true : parseGoBool(value);
      if (enabled === undefined) throw new RuntimeConfigError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
      if (tokens.length === 2) versionPrefs.push([gv, enabled]);
      else {
        const resource = tokens[2]!;
        if (resource.toLowerCase() !== resource) {
          throw new RuntimeConfigError(`invalid key ${key}: group/version/resource and resource is always lowercase plural, not ${JSON.stringify(resource)}`);
        }
        resourcePrefs.push([`${gv}/${resource}`, enabled]);
      }
    }
    // Versions first (they drop the per-resource defaults they override), resources last.
    for (const [gv, enabled] of versionPrefs) {
      versions.set(gv, enabled);
      for (const rk of [...resources.keys()]) if (rk.startsWith(`${gv}/`)) resources.delete(rk);
    }
    for (const [gvr, enabled] of resourcePrefs) {
      resources.set(gvr, enabled);
      // Enabling one resource of a disabled version serves the version with only that resource.
      if (enabled) {
        const gv = gvr.slice(0, gvr.lastIndexOf('/'));
        if (!versions.get(gv)) {
          versions.set(gv, true);
          for (const r of registered) {
            const rk = `${gv}/${r.resource}`;
            if (gvKey(r.group, r.version) === gv && !resources.has(rk)) resources.set(rk, false);
          }
        }
      }
    }
    return new ApiEnablement(versions, resources);
  }

  /** Whether a built-in group/version is served at all (unknown ones, custom resources: yes). */
  versionEnabled(group: string, version: string): boolean {
    return this.versions.get(`${group}/${version}`) ?? true;
  }

  /** Whether one resource is served: an explicit resource setting wins, else its version's. */
  resourceEnabled(group: string, version: string, resource: string): boolean {
    const gv = `${group}/${version}`;
    return this.resources.get(`${gv}/${resource}`) ?? this.versions.get(gv) ?? true;
  }
}

function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}
