/** AlwaysAdmit and AlwaysDeny, kube's trivial plugins (deprecated there, kept for tests and lockdowns). */
import { errors } from '../../api/status-errors.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { gvrGroupResource } from './namespace.ts';

export function alwaysAdmit(): AdmissionPlugin {
  return { name: 'AlwaysAdmit', handles: () => true, admit: () => undefined, validate: () => undefined };
}

/** Refuses every write with kube's admission.NewForbidden wording. */
export function alwaysDeny(): AdmissionPlugin {
  const refuse = (a: AdmissionAttributes): never => {
    throw errors.forbidden(gvrGroupResource(a), a.name, 'admission control is denying all modifications');
  };
  return { name: 'AlwaysDeny', handles: () => true, admit: refuse, validate: refuse };
}
