/**
 * `--authorization-mode`: a comma list whose order is priority. Validated with kube-apiserver's
 * messages (pkg/kubeapiserver/options/authorization.go); modes this server does not implement yet
 * are refused at startup rather than silently skipped.
 */

export type AuthorizationMode = 'AlwaysAllow' | 'AlwaysDeny' | 'ABAC' | 'RBAC' | 'Webhook';

/** The modes kube-apiserver knows, in its own order (for the "not a valid mode" check). */
const KUBE_MODES = new Set(['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node']);
const SUPPORTED = new Set<string>(['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Webhook']);

/** The files the modes need; absent ones are refused as kube refuses them. */
export interface ModeFiles {
  readonly policyFile?: string;
  readonly webhookConfigFile?: string;
}

export const DEFAULT_AUTHORIZATION_MODES: readonly AuthorizationMode[] = ['RBAC'];

/** Returns every problem with the list, in kube's wording; empty when the list is usable. */
export function validateAuthorizationModes(modes: readonly string[], files: ModeFiles = {}): string[] {
  const problems: string[] = [];
  if (modes.length === 0) problems.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (!KUBE_MODES.has(mode)) {
      problems.push(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    } else if (mode === 'ABAC' && !files.policyFile) {
      problems.push("authorization-mode ABAC's authorization policy file not passed");
    } else if (mode === 'Webhook' && !files.webhookConfigFile) {
      problems.push("authorization-mode Webhook's authorization config file not passed");
    } else if (!SUPPORTED.has(mode)) {
      problems.push(`authorization-mode ${JSON.stringify(mode)} is not supported by kube-gateway (it serves no nodes)`);
    }
  }
  if (files.policyFile && !modes.includes('ABAC')) problems.push('cannot specify --authorization-policy-file without mode ABAC');
  if (files.webhookConfigFile && !modes.includes('Webhook')) problems.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (new Set(modes).size !== modes.length) problems.push(`authorization-mode ${goSliceString(modes)} has mode specified more than once`);
  return problems;
}

/** Go's %q of a []string: ["a" "b"]. */
function goSliceString(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}
