/**
 * authentication.k8s.io/v1 kinds: TokenRequest (the body of serviceaccounts/token), TokenReview
 * and SelfSubjectReview. None is stored: each is created, answered and forgotten, so they are
 * described here only for body decoding, field validation and discovery.
 */
import type { ResourceType } from '../types.ts';
import { s } from './common-schemas.ts';
import { createOnlyType } from './create-only-type.ts';
import { kindSchema } from './object-meta-schema.ts';

const GROUP = 'authentication.k8s.io';

const userInfoSchema = s.object('Information about the requesting user.', {
  username: s.string('The name that uniquely identifies this user among all active users.'),
  uid: s.string('A unique value that identifies this user across time.'),
  groups: s.atomicStrings('The names of groups this user is a part of.'),
  extra: {
    type: 'object',
    description: 'Any additional information provided by the authenticator.',
    additionalProperties: { type: 'array', items: { type: 'string', default: '' } },
  },
});

const boundObjectReferenceSchema = s.object('A reference to an object that a token is bound to.', {
  kind: s.string('Kind of the referent. Valid kinds are Pod and Secret.'),
  apiVersion: s.string('API version of the referent.'),
  name: s.string('Name of the referent.'),
  uid: s.string('UID of the referent.'),
});

// spec and status are Go non-pointer structs in these kinds (kube's OpenAPI `default: {}`): a
// create does not take ownership of the struct itself, only of what the body sets inside it.
function virtualType(resource: string, kind: string, namespaced: boolean, description: string, properties: Parameters<typeof kindSchema>[1]): ResourceType {
  return createOnlyType(GROUP, resource, kind, namespaced, kindSchema(description, properties));
}

export const tokenRequestType = virtualType('tokenrequests', 'TokenRequest', true, 'TokenRequest requests a token for a given service account.', {
  spec: s.object('Parameters of the requested token.', {
    audiences: s.atomicStrings('Intended audiences of the token.'),
    expirationSeconds: s.int64('Requested duration of validity of the token.'),
    boundObjectRef: boundObjectReferenceSchema,
  }, { default: {} }),
  status: s.object('The issued token.', {
    token: s.string('The opaque bearer token.'),
    expirationTimestamp: s.dateTime('The time of expiration of the returned token.'),
  }, { default: {} }),
});

export const tokenReviewType = virtualType('tokenreviews', 'TokenReview', false, 'TokenReview attempts to authenticate a token to a known user.', {
  spec: s.object('The token to review.', {
    token: s.string('The opaque bearer token.'),
    audiences: s.atomicStrings('Identifiers that the resource server presented with the token identifies as.'),
  }, { default: {} }),
  status: s.object('The result of the review.', {
    authenticated: s.boolean('Whether the token is associated with a known user.'),
    user: userInfoSchema,
    audiences: s.atomicStrings('The audiences the token is valid for.'),
    error: s.string('Why the token could not be checked.'),
  }, { default: {} }),
});

export const selfSubjectReviewType = virtualType('selfsubjectreviews', 'SelfSubjectReview', false, 'SelfSubjectReview contains the user information the server has about the caller.', {
  status: s.object('Filled in by the server with the user attributes.', { userInfo: userInfoSchema }, { default: {} }),
});

/** The kinds discovery lists under authentication.k8s.io/v1 (TokenRequest is a subresource of serviceaccounts). */
export const authenticationDiscoveryTypes: readonly ResourceType[] = [selfSubjectReviewType, tokenReviewType];
