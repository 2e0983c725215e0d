/**
 * The scale subresource of custom resources: an autoscaling/v1 Scale read from and written to
 * the JSON paths the CRD names (specReplicasPath, statusReplicasPath, labelSelectorPath).
 * Reads build the Scale from the object; writes (PUT, merge and JSON patch) change only the
 * replicas at specReplicasPath, through the store's update (so validation and admission run).
 * As in kube, admission sees the write as one of autoscaling/v1 Scale (kind, object and old
 * object), subresource `scale` of the custom resource; a mutated Scale's replicas are written
 * back. Warnings (webhooks, policies' Warn action) reach the client as for any write.
 */
import type { KubeObject, ResourceType } from '../api/types.ts';
import { errors } from '../api/status-errors.ts';
import { applyMergePatch } from '../patch/merge-patch.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { decodeBody } from '../backend/local/body.ts';
import { writeContext } from '../backend/local/write-context.ts';
import { cborBodies } from '../backend/local/verbs.ts';
import type { LocalSubresource, ResourceRequest, ValueResult } from '../backend/types.ts';
import type { AdmissionView } from '../registry/resource-store.ts';
import type { ServedResource } from '../registry/resource-catalog.ts';
import { cloneObject } from '../registry/object-meta.ts';
import { readJsonPath, writeJsonPath } from './custom-resource.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function scaleOf(obj: KubeObject, paths: NonNullable<ResourceType['scale']>): KubeObject {
  const meta = obj.metadata ?? {};
  const spec = readJsonPath(obj, paths.specReplicasPath);
  const status = readJsonPath(obj, paths.statusReplicasPath);
  const selector = paths.labelSelectorPath ? readJsonPath(obj, paths.labelSelectorPath) : undefined;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: typeof spec === 'number' ? { replicas: spec } : {},
    status: { replicas: typeof status === 'number' ? status : 0, ...(typeof selector === 'string' && selector ? { selector } : {}) },
  };
}

/** The replicas a Scale asks for (Go's zero value when absent). */
function replicasOf(scale: unknown): unknown {
  return (isObj(scale) && isObj(scale.spec) ? scale.spec.replicas : undefined) ?? 0;
}

/** What admission sees of a scale write: autoscaling/v1 Scale, its replicas carried back into the object. */
function scaleView(paths: NonNullable<ResourceType['scale']>): AdmissionView {
  return {
    kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    toView: (obj) => scaleOf(obj, paths),
    fromView: (view, obj) => {
      writeJsonPath(obj as Obj, paths.specReplicasPath, replicasOf(view));
      return obj;
    },
  };
}

/** The scale subresource of the kinds whose CRD declares one. */
export const scaleSubresource: LocalSubresource = {
  serves: (rt, subresource) => subresource === 'scale' && rt.scale !== undefined,
  serve: serveScale,
};

async function serveScale(target: ServedResource, r: ResourceRequest): Promise<ValueResult> {
  const { rt, store } = target;
  const { info } = r;
  const paths = rt.scale;
  if (!paths) throw errors.pathNotFound();
  const answer = (obj: KubeObject): ValueResult => ({ kind: 'value', code: 200, value: scaleOf(obj, paths) });
  if (info.verb === 'get') {
    const entry = await store.get(info.namespace, info.name, r.query.get('resourceVersion') ?? '');
    return answer(store.served(entry.value));
  }
  const ctx = { ...writeContext(r), admissionView: scaleView(paths) };
  const body = await decodeBody(r.body, cborBodies(r), info.verb === 'patch' ? 'patch' : 'body');
  const result = await store.update(
    info.namespace,
    info.name,
    (current) => {
      if (!current) throw errors.notFound(store.gr, info.name);
      const scale = scaleOf(current, paths);
      let next: unknown;
      if (info.verb === 'patch') {
        if (body.kind === 'json-patch') next = applyJsonPatch(scale, body.value);
        else if (body.kind === 'merge-patch') next = applyMergePatch(scale, body.value);
        else throw errors.unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json']);
      } else next = body.value;
      const rv = isObj(next) && isObj(next.metadata) ? next.metadata.resourceVersion : undefined;
      const obj = cloneObject(current);
      writeJsonPath(obj as Obj, paths.specReplicasPath, replicasOf(next));
      // A PUT's resourceVersion is a precondition; a patch's is not.
      if (info.verb !== 'patch' && typeof rv === 'string' && rv !== '') obj.metadata = { ...obj.metadata, resourceVersion: rv };
      else if (obj.metadata) delete obj.metadata.resourceVersion;
      return obj;
    },
    ctx,
    { allowCreate: false, subresource: 'scale' },
  );
  return answer(result.object);
}
