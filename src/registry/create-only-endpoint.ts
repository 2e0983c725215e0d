/**
 * A create-only endpoint: a resource that is never stored, whose only verb is create, answered by
 * computing a result from the posted object (TokenReview, SelfSubjectReview, serviceaccounts/token).
 * The contract between the HTTP layer, which decodes and answers, and the gate that computes.
 */
import type { KubeObject, ResourceType } from '../api/types.ts';
import type { RequestUser } from '../request/user.ts';

export interface CreateOnlyRequest {
  /** The decoded, type-checked body (apiVersion and kind set). */
  readonly body: KubeObject;
  readonly namespace: string;
  /** The name in the URL (the parent object's, for a subresource), or ''. */
  readonly name: string;
  readonly user: RequestUser;
  readonly dryRun: boolean;
}

export interface CreateOnlyEndpoint {
  /** The kind posted and answered. */
  readonly rt: ResourceType;
  /** Computes the answer; may throw ApiErrors. */
  create(req: CreateOnlyRequest): Promise<KubeObject>;
}
