/**
 * `--authorization-mode`: a comma list whose order is priority. Validated with kube-apiserver's
 * messages (pkg/kubeapiserver/options/authorization.go); modes this server does not implement yet
 * are refused at startup rather than silently skipped.
 */

export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'RBAC';

/** The modes kube-apiserver knows, in its own order (for the "not a valid mode" check). */
const KUBE_MODES = new Set(['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node']);
const SUPPORTED = new Set<string>(['AlwaysAllow', 'AlwaysDeny', 'RBAC']);

export const DEFAULT_AUTHORIZATION_MODES: readonly AuthorizationMode[] = ['RBAC'];

/** Returns every problem with the list, in kube's wording; empty when the list is usable. */
export function validateAuthorizationModes(modes: readonly string[]): string[] {
  const problems: string[] = [];
  if (modes.length === 0) problems.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (!KUBE_MODES.has(mode)) {
      problems.push(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    } else if (mode === 'ABAC') {
      // The policy-file flag does not exist here yet, so this is always kube's answer.
      problems.push("authorization-mode ABAC's authorization policy file not passed");
    } else if (mode === 'Webhook') {
      problems.push("authorization-mode Webhook's authorization config file not passed");
    } else if (!SUPPORTED.has(mode)) {
      problems.push(`authorization-mode ${JSON.stringify(mode)} is not supported by kube-gateway (it serves no nodes)`);
    }
  }
  if (new Set(modes).size !== modes.length) problems.push(`authorization-mode ${goSliceString(modes)} has mode specified more than once`);
  return problems;
}

/** Go's %q of a []string: ["a" "b"]. */
function goSliceString(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}
