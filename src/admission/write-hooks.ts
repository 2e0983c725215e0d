/**
 * The adapter between a local backend's write pipeline (ResourceStore's WriteHooks) and the
 * admission chain: it turns one stage of one write into kube's admission attributes, in the
 * version the request used, and carries a mutated object back into the stored form.
 */
import type { KubeObject, ResourceType } from '../api/types.ts';
import type { WriteContext, WriteHooks } from '../registry/resource-store.ts';
import { cloneObject, jsonEqual } from '../registry/object-meta.ts';
import type { AdmissionAttributes, AdmissionOperation } from './types.ts';
import type { AdmissionChain } from './chain.ts';

const operations = { create: 'CREATE', update: 'UPDATE', delete: 'DELETE' } as const;

/** The options kind kube's admission attributes carry for each operation (a patch that creates carries CreateOptions). */
const optionsKinds: Record<AdmissionOperation, string> = {
  CREATE: 'CreateOptions',
  UPDATE: 'UpdateOptions',
  DELETE: 'DeleteOptions',
  CONNECT: '',
};

/**
 * The mutate and validate hooks of one resource type. `chain` is read at each write (the chain is
 * built once the stores exist); `served` gives an object in the type's served form.
 */
export function admissionWriteHooks(
  rt: ResourceType,
  chain: () => AdmissionChain | undefined,
  served: (stored: KubeObject) => KubeObject,
): Required<Pick<WriteHooks, 'mutate' | 'validate'>> {
  const attributes = (op: AdmissionOperation, obj: KubeObject | null, old: KubeObject | null, ctx: WriteContext): AdmissionAttributes => {
    const meta = (obj ?? old)?.metadata ?? {};
    const kind = optionsKinds[op];
    return {
      operation: op,
      kind: ctx.admissionView?.kind ?? { group: rt.group, version: rt.version, kind: rt.kind },
      resource: { group: rt.group, version: rt.version, resource: rt.resource },
      subresource: ctx.subresource ?? '',
      name: ctx.collection ? '' : (meta.name ?? ''),
      namespace: rt.namespaced ? (meta.namespace ?? '') : '',
      object: obj,
      oldObject: old,
      options: { kind, apiVersion: 'meta.k8s.io/v1', ...(ctx.options ?? {}) },
      dryRun: ctx.dryRun,
      userInfo: ctx.user!,
      warnings: ctx.warnings,
      auditAnnotations: ctx.auditAnnotations ?? {},
    };
  };
  /** The object as admission sees it: served, or in the write's admission view (a Scale); not a copy. */
  const seen = (obj: KubeObject, ctx: WriteContext): KubeObject => (ctx.admissionView ? ctx.admissionView.toView(served(obj)) : served(obj));
  return {
    async mutate(op, obj, old, ctx) {
      const c = chain();
      const operation = operations[op];
      if (!c || !ctx.user || !c.mutates(operation)) return;
      // Plugins change a copy in the served version (or view); a change is carried back into the stored form.
      const before = obj ? seen(obj, ctx) : null;
      const view = before ? cloneObject(before) : null;
      await c.admit(attributes(operation, view, old ? cloneObject(seen(old, ctx)) : null, ctx));
      if (!obj || !view || jsonEqual(view, before)) return;
      const mutated = ctx.admissionView ? ctx.admissionView.fromView(view, cloneObject(served(obj))) : view;
      const stored = rt.storageConversion ? rt.storageConversion.toStorage(mutated) : mutated;
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, stored);
    },
    async validate(op, obj, old, ctx) {
      const c = chain();
      const operation = operations[op];
      if (!c || !ctx.user || !c.validates(operation)) return;
      await c.validate(attributes(operation, obj ? seen(obj, ctx) : null, old ? seen(old, ctx) : null, ctx));
    },
  };
}
