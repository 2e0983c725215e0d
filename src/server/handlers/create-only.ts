/**
 * Create-only endpoints: resources that are never stored, whose only verb is create, answered
 * by computing a result from the posted object (TokenReview, SelfSubjectReview, and
 * subresources such as serviceaccounts/token). The body is decoded and field-validated like any
 * create; the answer is 201 with the completed object.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../api/status-errors.ts';
import { negotiateOutput, type Negotiated, type Serializer } from '../../codec/negotiate.ts';
import type { ResourceType } from '../../api/types.ts';
import { dryRunFromQuery } from '../../registry/delete-options.ts';
import { splitPath, type ResourceRequestInfo } from '../../request/request-info.ts';
import { addWarnings, sendValue } from '../respond.ts';
import type { RequestUser } from '../../request/user.ts';
import type { CreateOnlyEndpoint } from '../../registry/create-only-endpoint.ts';
import { fieldValidationMode, protobufServed, readObjectBody } from '../../backend/local/body.ts';
import { managerFor } from '../../backend/local/field-manager.ts';
import { requestBodyOf } from './resource.ts';
import { createOnlyManagedFields } from '../../registry/apply-context.ts';

/** The create-only endpoints of a server, by URL group/version/resource/subresource. */
export class CreateOnlyEndpoints {
  private readonly byPath = new Map<string, { readonly endpoint: CreateOnlyEndpoint; readonly namespaced: boolean }>();

  /**
   * `group` and `version` are the URL's (the parent resource's, for a subresource); `namespaced`
   * is the scope of the URL's resource. A subresource endpoint sits on a named object
   * (`.../serviceaccounts/NAME/token`); a main one on the collection (`.../tokenreviews`).
   */
  add(group: string, version: string, resource: string, subresource: string, endpoint: CreateOnlyEndpoint, opts: { namespaced: boolean }): this {
    this.byPath.set(`${group}/${version}/${resource}/${subresource}`, { endpoint, namespaced: opts.namespaced });
    return this;
  }

  /**
   * The endpoint whose one route is exactly this path, or undefined (other paths below it, such
   * as `tokenreviews/NAME` or `token/extra`, are no route: the caller's 404).
   */
  find(info: ResourceRequestInfo, path: string): CreateOnlyEndpoint | undefined {
    const hit = this.byPath.get(`${info.apiGroup}/${info.apiVersion}/${info.resource}/${info.subresource}`);
    if (!hit) return undefined;
    const sub = info.subresource !== '';
    if (hit.namespaced !== (info.namespace !== '') || sub !== (info.name !== '')) return undefined;
    const expected = (info.apiPrefix === 'api' ? 2 : 3) + (hit.namespaced ? 2 : 0) + 1 + (sub ? 2 : 0);
    return splitPath(path).length === expected ? hit.endpoint : undefined;
  }
}

/**
 * The answer's format for a resource that is only created, negotiated before the body is read:
 * any built-in object's serializers, protobuf when its kind has that form (client-go's typed
 * clients ask for it); never a Table or metadata (kube's 406).
 */
export function createOnlyOutput(req: FastifyRequest, rt: ResourceType | undefined): Negotiated {
  const serializers: Serializer[] = rt !== undefined && protobufServed(rt) ? ['json', 'yaml', 'protobuf'] : ['json', 'yaml'];
  if (req.server.features.enabled('CBORServingAndStorage')) serializers.push('cbor');
  return negotiateOutput({
    accept: String(req.headers.accept ?? ''),
    offer: { serializers },
    prettyQuery: req.searchParams.get('pretty'),
    userAgent: String(req.headers['user-agent'] ?? ''),
  });
}

export async function handleCreateOnly(req: FastifyRequest, reply: FastifyReply, info: ResourceRequestInfo, endpoint: CreateOnlyEndpoint, user: RequestUser): Promise<void> {
  if (info.verb !== 'create') throw errors.methodNotAllowed();
  const fmt = createOnlyOutput(req, endpoint.rt);
  const dryRun = dryRunFromQuery(req.searchParams, 'CreateOptions');
  const warnings: string[] = [];
  // The URL's name belongs to the parent (serviceaccounts/NAME/token); the body's is not compared to it.
  const manager = managerFor(req.searchParams, String(req.headers['user-agent'] ?? ''));
  const body = await readObjectBody(requestBodyOf(req), req.server.features.enabled('CBORServingAndStorage'), { rt: endpoint.rt, namespace: info.namespace, name: '' }, fieldValidationMode(req.searchParams), warnings);
  // Ownership of what the body sets, stamped before the answer is computed (kube's create handler).
  const managedFields = createOnlyManagedFields(endpoint.rt, body, manager, info.subresource, new Date());
  const result = await endpoint.create({ body, namespace: info.namespace, name: info.name, user, dryRun });
  const meta = (result as { metadata?: { managedFields?: unknown } }).metadata;
  if (meta && Array.isArray(managedFields) && managedFields.length > 0) meta.managedFields = managedFields;
  addWarnings(reply, warnings);
  sendValue(req, reply, 201, result, fmt);
}
