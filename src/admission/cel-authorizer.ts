/**
 * The expression language's `authorizer` variable for one admission request (policies and webhook
 * match conditions): one implementation, src/authz/cel-adapter.ts, so admission asks exactly as
 * kube's CEL authorizer library does (a service account is its user and its two groups, without
 * system:authenticated, as serviceaccount.UserInfo gives them).
 */
export { celAuthorizerFor } from '../authz/cel-adapter.ts';
