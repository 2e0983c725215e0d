/** The built-in kinds the core registry serves, and lookup by group/version/resource. */
import { validatingAdmissionPolicyBindingType, validatingAdmissionPolicyType } from './kinds/admissionregistration-policy.ts';
import { configMapType } from './kinds/configmap.ts';
import { mutatingWebhookConfigurationType, validatingWebhookConfigurationType } from './kinds/admissionregistration.ts';
import { eventType } from './kinds/event.ts';
import { eventsV1EventType } from './kinds/events-v1-event.ts';
import { leaseType } from './kinds/lease.ts';
import { namespaceType } from './kinds/namespace.ts';
import { clusterRoleBindingType, clusterRoleType, roleBindingType, roleType } from './kinds/rbac.ts';
import { secretType } from './kinds/secret.ts';
import { serviceAccountType } from './kinds/serviceaccount.ts';
import type { ResourceType } from './types.ts';
import { customResourceDefinitionType } from '../crd/kind.ts';
import { flowSchemaType, priorityLevelConfigurationType } from '../flowcontrol/kinds.ts';
import { apiServiceType } from '../aggregator/apiservice.ts';

/** Every built-in kind, core group first, then named groups alphabetically; the order is stable. */
export const builtinResourceTypes: readonly ResourceType[] = [
  configMapType,
  eventType,
  namespaceType,
  secretType,
  serviceAccountType,
  mutatingWebhookConfigurationType,
  validatingWebhookConfigurationType,
  customResourceDefinitionType,
  apiServiceType,
  leaseType,
  eventsV1EventType,
  flowSchemaType,
  priorityLevelConfigurationType,
  clusterRoleBindingType,
  clusterRoleType,
  roleBindingType,
  roleType,
  validatingAdmissionPolicyType,
  validatingAdmissionPolicyBindingType,
];

/** The verbs every built-in kind serves on its main resource, as discovery lists them. */
export const builtinVerbs: readonly string[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The type serving `resource` in `group`/`version` ('' is the core group), or undefined. */
export function findResourceType(types: readonly ResourceType[], group: string, version: string, resource: string): ResourceType | undefined {
  return types.find((t) => t.group === group && t.version === version && t.resource === resource);
}
