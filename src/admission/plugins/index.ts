/**
 * The compiled-in admission plugins, registered under kube's names. A plugin added here is
 * enabled by --enable-admission-plugins (or by default when kube enables it by default).
 */
import { registerAdmissionPlugin } from '../chain.ts';
import { alwaysAdmit, alwaysDeny } from './always.ts';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook } from '../webhook/dispatcher.ts';
import { ownerReferencesPermissionEnforcement } from './owner-references.ts';
import { eventRateLimit } from './event-rate-limit.ts';
import { namespaceAutoProvision, namespaceExists, namespaceLifecycle } from './namespace.ts';
import { validatingAdmissionPolicy } from '../policy/index.ts';

registerAdmissionPlugin('AlwaysAdmit', alwaysAdmit);
registerAdmissionPlugin('NamespaceAutoProvision', namespaceAutoProvision);
registerAdmissionPlugin('NamespaceLifecycle', namespaceLifecycle);
registerAdmissionPlugin('NamespaceExists', namespaceExists);
registerAdmissionPlugin('ValidatingAdmissionPolicy', validatingAdmissionPolicy);
registerAdmissionPlugin('EventRateLimit', (deps) => eventRateLimit(deps));
registerAdmissionPlugin('OwnerReferencesPermissionEnforcement', ownerReferencesPermissionEnforcement);
registerAdmissionPlugin('MutatingAdmissionWebhook', mutatingAdmissionWebhook);
registerAdmissionPlugin('ValidatingAdmissionWebhook', validatingAdmissionWebhook);
registerAdmissionPlugin('AlwaysDeny', alwaysDeny);
