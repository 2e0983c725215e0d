/**
 * The scale subresource of custom resources: an autoscaling/v1 Scale read from and written to
 * the JSON paths the CRD names (specReplicasPath, statusReplicasPath, labelSelectorPath).
 * Reads build the Scale from the object; writes (PUT, merge and JSON patch) change only the
 * replicas at specReplicasPath, through the store's update (so validation and admission run).
 */
import type { KubeObject } from '../api/types.ts';
import { errors } from '../api/status-errors.ts';
import { applyMergePatch } from '../patch/merge-patch.ts';
import { applyJsonPatch } from '../patch/json-patch.ts';
import { sendValue } from '../server/respond.ts';
import { decodeBody } from '../server/handlers/body.ts';
import { writeContext, negotiate, type VerbContext } from '../server/handlers/resource.ts';
import { cloneObject } from '../registry/object-meta.ts';
import { readJsonPath, writeJsonPath } from './custom-resource.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function scaleOf(obj: KubeObject, paths: NonNullable<VerbContext['served']['rt']['scale']>): KubeObject {
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

export async function handleScale(c: VerbContext): Promise<void> {
  const { rt, store } = c.served;
  const paths = rt.scale;
  if (!paths) throw errors.pathNotFound();
  const fmt = negotiate(c);
  const sendScale = (obj: KubeObject) => sendValue(c.req, c.reply, 200, scaleOf(obj, paths), fmt);
  if (c.info.verb === 'get') {
    const entry = await store.get(c.info.namespace, c.info.name, c.query.get('resourceVersion') ?? '');
    sendScale(store.served(entry.value));
    return;
  }
  const ctx = writeContext(c);
  const body = await decodeBody(c.req, c.info.verb === 'patch' ? 'patch' : 'body');
  const result = await store.update(
    c.info.namespace,
    c.info.name,
    (current) => {
      if (!current) throw errors.notFound(store.gr, c.info.name);
      const scale = scaleOf(current, paths);
      let next: unknown;
      if (c.info.verb === 'patch') {
        if (body.kind === 'json-patch') next = applyJsonPatch(scale, body.value);
        else if (body.kind === 'merge-patch') next = applyMergePatch(scale, body.value);
        else throw errors.unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json']);
      } else next = body.value;
      const replicas = isObj(next) && isObj(next.spec) ? next.spec.replicas : undefined;
      const rv = isObj(next) && isObj(next.metadata) ? next.metadata.resourceVersion : undefined;
      const obj = cloneObject(current);
      writeJsonPath(obj as Obj, paths.specReplicasPath, replicas ?? 0);
      // A PUT's resourceVersion is a precondition; a patch's is not.
      if (c.info.verb !== 'patch' && typeof rv === 'string' && rv !== '') obj.metadata = { ...obj.metadata, resourceVersion: rv };
      else if (obj.metadata) delete obj.metadata.resourceVersion;
      return obj;
    },
    ctx,
    { allowCreate: false, subresource: 'scale' },
  );
  sendScale(result.object);
}
