/**
 * The authentication.k8s.io endpoints, answered as kube-apiserver v1.32 answers them:
 * TokenRequest (`serviceaccounts/NAME/token`), TokenReview and SelfSubjectReview.
 */
import { errors } from '../api/status-errors.ts';
import type { FieldError } from '../api/field-errors.ts';
import type { KubeObject } from '../api/types.ts';
import { selfSubjectReviewType, tokenRequestType, tokenReviewType } from '../api/kinds/authentication.ts';
import type { CreateOnlyEndpoint } from '../registry/create-only-endpoint.ts';
import type { TokenReviewOutcome } from './bearer-token.ts';
import type { ServiceAccountTokenIssuer } from './serviceaccount-token.ts';
import type { UserInfo } from './types.ts';

const GROUP = 'authentication.k8s.io';
const API_VERSION = `${GROUP}/v1`;
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

/** Reads live objects for the TokenRequest (ServiceAccount and bound Secret). */
export interface ObjectReader {
  /** The object, or undefined when it does not exist. */
  get(resource: 'serviceaccounts' | 'secrets', namespace: string, name: string): Promise<KubeObject | undefined>;
}

export interface TokenRequestOptions {
  readonly issuer: ServiceAccountTokenIssuer;
  /** --api-audiences: the default audiences of a token. */
  readonly apiAudiences: readonly string[];
  /** --service-account-max-token-expiration in seconds; 0: no limit. */
  readonly maxExpirationSeconds: number;
  readonly objects: ObjectReader;
  readonly now?: () => Date;
}

/** `POST /api/v1/namespaces/NS/serviceaccounts/NAME/token`. */
export function tokenRequestEndpoint(opts: TokenRequestOptions): CreateOnlyEndpoint {
  return {
    rt: tokenRequestType,
    async create({ body, namespace, name }) {
      const spec = asRecord(body.spec) ?? {};
      const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? (spec.audiences as string[]) : [...opts.apiAudiences];
      let expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_EXPIRATION_SECONDS;
      const boundRef = asRecord(spec.boundObjectRef);

      const errs: FieldError[] = [];
      if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
        errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', badValue: expirationSeconds, detail: 'may not specify a duration less than 10 minutes' });
      } else if (expirationSeconds > MAX_EXPIRATION_SECONDS) {
        errs.push({ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', badValue: expirationSeconds, detail: 'may not specify a duration larger than 2^32 seconds' });
      }
      if (errs.length > 0) throw errors.invalid(`TokenRequest.${GROUP}`, GROUP, 'TokenRequest', String(body.metadata?.name ?? ''), errs);

      const sa = await opts.objects.get('serviceaccounts', namespace, name);
      if (!sa) throw errors.notFound({ group: '', resource: 'serviceaccounts' }, name);
      const saUid = String(sa.metadata?.uid ?? '');
      const requestedUid = body.metadata?.uid;
      if (typeof requestedUid === 'string' && requestedUid !== '' && requestedUid !== saUid) {
        throw errors.conflict({ group: '', resource: 'serviceaccounts' }, name, `the UID in the token request (${requestedUid}) does not match the UID of the service account (${saUid})`);
      }

      let boundSecret: { name: string; uid: string } | undefined;
      if (boundRef) {
        const kind = String(boundRef.kind ?? '');
        const refName = String(boundRef.name ?? '');
        if (kind !== 'Secret') {
          // Pods and Nodes are not served by this server, so a token cannot be bound to one.
          throw errors.badRequest(`cannot bind token to object of type ${kind === '' ? 'unknown' : `${String(boundRef.apiVersion ?? '')}, Kind=${kind}`}`);
        }
        const secret = await opts.objects.get('secrets', namespace, refName);
        if (!secret) throw errors.notFound({ group: '', resource: 'secrets' }, refName);
        const uid = String(secret.metadata?.uid ?? '');
        if (typeof boundRef.uid === 'string' && boundRef.uid !== '' && boundRef.uid !== uid) {
          throw errors.conflict({ group: '', resource: 'secrets' }, refName, `the UID in the bound object reference (${boundRef.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
        }
        boundSecret = { name: refName, uid };
      }

      // As kube: a request beyond the maximum is shortened to it, not refused.
      if (opts.maxExpirationSeconds > 0 && expirationSeconds > opts.maxExpirationSeconds) expirationSeconds = opts.maxExpirationSeconds;
      const now = opts.now?.() ?? new Date();
      const issued = opts.issuer.issue({ namespace, serviceAccount: { name, uid: saUid }, audiences, expirationSeconds, boundSecret, now });
      return {
        kind: 'TokenRequest',
        apiVersion: API_VERSION,
        metadata: { name, namespace, creationTimestamp: rfc3339Seconds(now) },
        spec: {
          audiences,
          expirationSeconds,
          boundObjectRef: boundRef ? { kind: 'Secret', apiVersion: 'v1', name: boundSecret!.name, uid: boundSecret!.uid } : null,
        },
        status: { token: issued.token, expirationTimestamp: issued.expirationTimestamp },
      };
    },
  };
}

/** `POST /apis/authentication.k8s.io/v1/tokenreviews`. */
export function tokenReviewEndpoint(opts: {
  readonly review: (token: string, audiences: readonly string[]) => Promise<TokenReviewOutcome>;
  readonly apiAudiences: readonly string[];
}): CreateOnlyEndpoint {
  return {
    rt: tokenReviewType,
    async create({ body }) {
      const spec = asRecord(body.spec) ?? {};
      const token = typeof spec.token === 'string' ? spec.token : '';
      if (token === '') throw errors.badRequest('token is required for TokenReview in authentication');
      const requested = Array.isArray(spec.audiences) ? (spec.audiences as string[]) : [];
      const outcome = await opts.review(token, requested.length > 0 ? requested : opts.apiAudiences);
      const status = outcome.authenticated
        ? { authenticated: true, user: userInfoJson(outcome.user), audiences: [...outcome.audiences] }
        : { user: {}, error: outcome.error };
      // No metadata of the request survives but what kube keeps (its creationTimestamp is null).
      return { kind: 'TokenReview', apiVersion: API_VERSION, metadata: { creationTimestamp: null }, spec: body.spec ?? {}, status };
    },
  };
}

/** `POST /apis/authentication.k8s.io/v1/selfsubjectreviews`: who the caller is. */
export function selfSubjectReviewEndpoint(now: () => Date = () => new Date()): CreateOnlyEndpoint {
  return {
    rt: selfSubjectReviewType,
    async create({ user }) {
      return {
        kind: 'SelfSubjectReview',
        apiVersion: API_VERSION,
        metadata: { creationTimestamp: rfc3339Seconds(now()) },
        status: { userInfo: userInfoJson(user) },
      };
    },
  };
}

/** kube's UserInfo JSON: empty uid and extra are left out. */
function userInfoJson(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: [...user.groups] } : {}),
    ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

function rfc3339Seconds(d: Date): string {
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
