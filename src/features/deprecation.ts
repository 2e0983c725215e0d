/**
 * Deprecation facts of a served resource, in one place: the `Warning` text kube sends, and the
 * release that removes it (`apiserver_requested_deprecated_apis{removed_release}`, audit
 * annotation `k8s.io/removed-release`). Read by the front door and by audit alike.
 */
import type { ResourceType } from '../api/types.ts';

export interface Deprecation {
  /** The `Warning` header text (kube's deprecation.WarningMessage, or a CRD version's own). */
  readonly warning: string;
  /** `major.minor` of the release that removes the version; empty when none is planned. */
  readonly removedRelease: string;
}

const memo = new WeakMap<ResourceType, Deprecation | null>();

/** The deprecation of `rt`'s version, or undefined when it is not deprecated. Memoized per type. */
export function deprecationOf(rt: ResourceType): Deprecation | undefined {
  let d = memo.get(rt);
  if (d === undefined) {
    d = compute(rt);
    memo.set(rt, d);
  }
  return d ?? undefined;
}

function compute(rt: ResourceType): Deprecation | null {
  // A deprecated custom resource version: its deprecationWarning, or kube's default for it.
  if (rt.deprecationWarning !== undefined) return { warning: rt.deprecationWarning, removedRelease: '' };
  const lc = rt.lifecycle;
  if (!lc) return null;
  const gv = rt.group === '' ? rt.version : `${rt.group}/${rt.version}`;
  // kube's deprecation.WarningMessage.
  let warning = `${gv} ${rt.kind} is deprecated in v${lc.deprecated[0]}.${lc.deprecated[1]}+`;
  if (lc.removed) warning += `, unavailable in v${lc.removed[0]}.${lc.removed[1]}+`;
  if (lc.replacement) {
    const r = lc.replacement;
    warning += `; use ${r.group === '' ? r.version : `${r.group}/${r.version}`} ${r.kind}`;
  }
  return { warning, removedRelease: lc.removed ? `${lc.removed[0]}.${lc.removed[1]}` : '' };
}
