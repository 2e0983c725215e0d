/** The authentication gate: build it with createAuthenticator, call authenticate once per request. */
export { createAuthenticator, composeAuthenticators, withAuthenticatedGroup, type AuthenticatorOptions, type ServerAuthenticator } from './union.ts';
export { createX509Authenticator, parseCertificateBundle, peerOfSocket } from './x509.ts';
export { createTokenFileAuthenticator, loadTokenFile, parseTokenFile, readCsvRecords, TokenFileError } from './token-file.ts';
export { bearerTokenOf, createBearerTokenAuthenticator, reviewToken, type TokenReviewOutcome } from './bearer-token.ts';
export * from './serviceaccount-token.ts';
export { loadServiceAccountKeys, ServiceAccountKeyError, type ServiceAccountKeys } from './service-account-keys.ts';
export { anonymousUser, createAnonymousAuthenticator } from './anonymous.ts';
export * from './types.ts';
export { createRequestHeaderAuthenticator, type RequestHeaderOptions } from './request-header.ts';
