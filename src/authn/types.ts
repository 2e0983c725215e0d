/**
 * Types shared by the authentication steps. Each step looks at one kind of credential and
 * answers with an AuthnOutcome; union.ts composes the steps into the gate.
 */
import type { ApiError } from '../api/status-errors.ts';

/** Who made a request. Opaque to everything before authorization. */
export interface UserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

/**
 * The subset of Node's `tls.PeerCertificate` / `DetailedPeerCertificate` the gate reads. Node
 * returns `{}` when the client sent no certificate; that counts as no certificate here.
 */
export interface PeerCertificateInfo {
  readonly subject?: { readonly CN?: string | readonly string[]; readonly O?: string | readonly string[] };
  /** The DER encoding; when present, the chain is verified here against the client CAs. */
  readonly raw?: Uint8Array;
  /** The next certificate of the presented chain (`getPeerCertificate(true)`); self-signed ones point at themselves. */
  readonly issuerCertificate?: PeerCertificateInfo;
}

/** What the gate reads from a request: headers and the TLS peer. */
export interface AuthRequest {
  /** Header names lowercase, as Node gives them. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly peerCertificate?: PeerCertificateInfo | null;
  /** `socket.authorized`: the TLS layer verified the peer chain. Used only when `raw` is missing. */
  readonly peerAuthorized: boolean;
  /**
   * Node's alternating name/value header list: repeated headers stay separate here (Node joins
   * them with ", " in `headers`), as kube reads every line of a multi-valued header.
   */
  readonly rawHeaders?: readonly string[];
  /** The request path without the query (anonymous access may be limited to some paths). */
  readonly path?: string;
  /**
   * The connection the request came on (any object that lives as long as it): a bearer token
   * presented again on the same connection is answered from its cache entry without hashing.
   */
  readonly connection?: object;
}

/** One step's answer: a user, "not my kind of credential", or a credential of its kind that is bad. */
export type AuthnOutcome =
  | { readonly kind: 'authenticated'; readonly user: UserInfo; /** The audiences the credential was valid for, when the method knows. */ readonly audiences?: readonly string[] }
  | { readonly kind: 'no-credentials' }
  | { readonly kind: 'rejected'; readonly reason: string };

/**
 * One authentication step over the whole request. Steps answer synchronously when they can (a
 * certificate, a cached token), so the gate costs no promise per request then.
 */
export interface RequestAuthenticator {
  readonly name: string;
  authenticate(req: AuthRequest): AuthnOutcome | Promise<AuthnOutcome>;
}

/** One authentication step over a bearer token. */
export interface TokenAuthenticator {
  readonly name: string;
  /**
   * `no-credentials` means this step does not know the token; another step may. `context.audiences`
   * (a TokenReview's spec.audiences) replaces the server's --api-audiences for this check.
   */
  authenticateToken(token: string, context?: TokenContext): Promise<AuthnOutcome>;
}

export interface TokenContext {
  readonly audiences?: readonly string[];
}

/** The gate's answer for one request. */
export type AuthResult =
  | { readonly ok: true; readonly user: UserInfo }
  | { readonly ok: false; readonly error: ApiError; /** Why, for the log; never sent to the client. */ readonly reason: string };

/** The authentication gate. Asynchronous only when a step is (a token not cached yet: webhooks, JWT). */
export interface Authenticator {
  authenticate(req: AuthRequest): AuthResult | Promise<AuthResult>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ALL_AUTHENTICATED = 'system:authenticated';
/** The extra key under which the credential's fingerprint is recorded (for audit). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';
