/**
 * Admission for create-only subresources that are computed rather than stored (the
 * `serviceaccounts/token` TokenRequest): kube-apiserver admits them like any create, with the
 * posted object, the parent's resource and the subresource's name.
 */
import type { CreateOnlyEndpoint } from '../registry/create-only-endpoint.ts';
import { cloneObject } from '../registry/object-meta.ts';
import type { GroupVersionResource } from './types.ts';
import type { AdmissionChain } from './chain.ts';

export function admittedCreateOnly(endpoint: CreateOnlyEndpoint, parent: GroupVersionResource, subresource: string, chain: () => AdmissionChain | undefined): CreateOnlyEndpoint {
  return {
    rt: endpoint.rt,
    async create(req) {
      const c = chain();
      if (!c) return endpoint.create(req);
      const object = cloneObject(req.body);
      const attrs = {
        operation: 'CREATE' as const,
        kind: { group: endpoint.rt.group, version: endpoint.rt.version, kind: endpoint.rt.kind },
        resource: parent,
        subresource,
        name: req.name,
        namespace: req.namespace,
        object,
        oldObject: null,
        options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', ...(req.dryRun ? { dryRun: ['All'] } : {}) },
        dryRun: req.dryRun,
        userInfo: req.user,
        warnings: [],
        auditAnnotations: {},
      };
      if (c.mutates('CREATE')) await c.admit(attrs);
      if (c.validates('CREATE')) await c.validate(attrs);
      return endpoint.create({ ...req, body: object });
    },
  };
}
