/**
 * `--authorization-config`: an AuthorizationConfiguration (apiserver.config.k8s.io v1, v1beta1
 * or v1alpha1) listing the authorizers in order, validated with kube's rules and words
 * (apiserver/pkg/apis/apiserver/validation), defaulted as kube defaults it (TTLs 5m and 30s,
 * caching on). Parsing is separate from building so a reload can refuse a bad file and keep the
 * chain it has.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { aggregateFieldErrors, fieldErr, type FieldError } from '../api/field-errors.ts';
import { isDns1123Subdomain } from '../api/validation/names.ts';
import { parseGoDuration } from '../schema/go-duration.ts';
import { compileMatchConditions, type FailurePolicy } from './webhook.ts';
import type { CompiledExpression } from '../cel/index.ts';

const GROUP = 'apiserver.config.k8s.io';
const VERSIONS = new Set(['v1', 'v1beta1', 'v1alpha1']);
const KNOWN_TYPES = ['AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'];
const MAX_MATCH_CONDITIONS = 64;

export interface WebhookAuthorizerSpec {
  readonly timeoutMs: number;
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  readonly cacheAuthorizedRequests: boolean;
  readonly cacheUnauthorizedRequests: boolean;
  readonly subjectAccessReviewVersion: 'v1' | 'v1beta1';
  readonly failurePolicy: FailurePolicy;
  readonly kubeConfigFile: string;
  readonly matchConditions: readonly CompiledExpression[];
}

export interface AuthorizerSpec {
  readonly type: 'AlwaysAllow' | 'AlwaysDeny' | 'RBAC' | 'Webhook';
  readonly name: string;
  readonly webhook?: WebhookAuthorizerSpec;
}

/** Reads and validates the file; throws an Error whose message lists every problem. */
export function loadAuthorizationConfiguration(path: string): AuthorizerSpec[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`failed to read authorization configuration file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  return parseAuthorizationConfiguration(text, path);
}

export function parseAuthorizationConfiguration(text: string, path: string): AuthorizerSpec[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`failed to decode authorization configuration file ${JSON.stringify(path)}: ${(err as Error).message}`);
  }
  const o = obj(doc);
  if (!o) throw new Error(`failed to decode authorization configuration file ${JSON.stringify(path)}: not an object`);
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const kind = typeof o.kind === 'string' ? o.kind : '';
  if (!apiVersion.startsWith(`${GROUP}/`) || !VERSIONS.has(apiVersion.slice(GROUP.length + 1)) || kind !== 'AuthorizationConfiguration') {
    throw new Error(`failed to decode authorization configuration file ${JSON.stringify(path)}: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`);
  }
  const errs: FieldError[] = [];
  const out: AuthorizerSpec[] = [];
  const authorizers = Array.isArray(o.authorizers) ? o.authorizers : [];
  if (authorizers.length === 0) errs.push(fieldErr.required('authorizers', 'at least one authorization mode must be defined'));
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  authorizers.forEach((raw, i) => {
    const at = `authorizers[${i}]`;
    const a = obj(raw) ?? {};
    const type = typeof a.type === 'string' ? a.type : '';
    if (type === '') return void errs.push(fieldErr.required(`${at}.type`, ''));
    if (!KNOWN_TYPES.includes(type)) return void errs.push(fieldErr.notSupported(`${at}.type`, type, KNOWN_TYPES));
    if (seenTypes.has(type) && type !== 'Webhook') return void errs.push(fieldErr.duplicate(`${at}.type`, type));
    seenTypes.add(type);
    const name = typeof a.name === 'string' ? a.name : '';
    if (name === '') errs.push(fieldErr.required(`${at}.name`, ''));
    else if (seenNames.has(name)) errs.push(fieldErr.duplicate(`${at}.name`, name));
    else if (!isDns1123Subdomain(name)) errs.push(fieldErr.invalid(`${at}.name`, name, 'authorizer name is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'));
    seenNames.add(name);
    if (type !== 'Webhook') {
      if (a.webhook !== undefined && a.webhook !== null) errs.push(fieldErr.invalid(`${at}.webhook`, 'non-null', 'may only be specified when type=Webhook'));
      if (type === 'Node') errs.push(fieldErr.notSupported(`${at}.type`, type, KNOWN_TYPES.filter((t) => t !== 'Node')));
      else out.push({ type: type as AuthorizerSpec['type'], name });
      return;
    }
    const w = obj(a.webhook);
    if (!w) return void errs.push(fieldErr.required(`${at}.webhook`, 'required when type=Webhook'));
    const webhook = webhookSpec(w, `${at}.webhook`, errs);
    if (webhook) out.push({ type: 'Webhook', name, webhook });
  });
  if (errs.length > 0) throw new Error(`invalid authorization configuration file ${JSON.stringify(path)}: ${aggregateFieldErrors(errs)}`);
  return out;
}

function webhookSpec(w: Record<string, unknown>, at: string, errs: FieldError[]): WebhookAuthorizerSpec | undefined {
  const before = errs.length;
  const duration = (field: string, dflt: number | undefined): number => {
    const v = w[field];
    if (v === undefined || v === null || v === '') return dflt ?? 0;
    if (typeof v !== 'string') {
      errs.push(fieldErr.invalid(`${at}.${field}`, v, 'must be a duration string'));
      return 0;
    }
    try {
      const ms = parseGoDuration(v);
      return ms === 0 && dflt !== undefined ? dflt : ms;
    } catch (err) {
      errs.push(fieldErr.invalid(`${at}.${field}`, v, (err as Error).message));
      return 0;
    }
  };
  const timeoutMs = duration('timeout', undefined);
  if (timeoutMs === 0) errs.push(fieldErr.required(`${at}.timeout`, ''));
  else if (timeoutMs > 30_000 || timeoutMs < 0) errs.push(fieldErr.invalid(`${at}.timeout`, w.timeout, 'must be > 0s and <= 30s'));
  const authorizedTtlMs = duration('authorizedTTL', 5 * 60_000);
  if (authorizedTtlMs < 0) errs.push(fieldErr.invalid(`${at}.authorizedTTL`, w.authorizedTTL, 'must be > 0s'));
  const unauthorizedTtlMs = duration('unauthorizedTTL', 30_000);
  if (unauthorizedTtlMs < 0) errs.push(fieldErr.invalid(`${at}.unauthorizedTTL`, w.unauthorizedTTL, 'must be > 0s'));
  const sarVersion = typeof w.subjectAccessReviewVersion === 'string' ? w.subjectAccessReviewVersion : '';
  if (sarVersion === '') errs.push(fieldErr.required(`${at}.subjectAccessReviewVersion`, ''));
  else if (sarVersion !== 'v1' && sarVersion !== 'v1beta1') errs.push(fieldErr.notSupported(`${at}.subjectAccessReviewVersion`, sarVersion, ['v1', 'v1beta1']));
  const conditions = Array.isArray(w.matchConditions) ? w.matchConditions : [];
  const mcVersion = typeof w.matchConditionSubjectAccessReviewVersion === 'string' ? w.matchConditionSubjectAccessReviewVersion : '';
  if (mcVersion === '') {
    if (conditions.length > 0) errs.push(fieldErr.required(`${at}.matchConditionSubjectAccessReviewVersion`, 'required if match conditions are specified'));
  } else if (mcVersion !== 'v1') errs.push(fieldErr.notSupported(`${at}.matchConditionSubjectAccessReviewVersion`, mcVersion, ['v1']));
  const failurePolicy = typeof w.failurePolicy === 'string' ? w.failurePolicy : '';
  if (failurePolicy === '') errs.push(fieldErr.required(`${at}.failurePolicy`, ''));
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny') errs.push(fieldErr.notSupported(`${at}.failurePolicy`, failurePolicy, ['NoOpinion', 'Deny']));
  const conn = obj(w.connectionInfo) ?? {};
  const connType = typeof conn.type === 'string' ? conn.type : '';
  const kubeConfigFile = typeof conn.kubeConfigFile === 'string' ? conn.kubeConfigFile : '';
  if (connType === '') errs.push(fieldErr.required(`${at}.connectionInfo.type`, ''));
  else if (connType === 'InClusterConfig') {
    // kube-gateway runs in no cluster: there is no in-cluster service account to call with.
    errs.push(fieldErr.notSupported(`${at}.connectionInfo.type`, connType, ['KubeConfigFile']));
  } else if (connType === 'KubeConfigFile') {
    if (kubeConfigFile === '') errs.push(fieldErr.required(`${at}.connectionInfo.kubeConfigFile`, ''));
    else if (!isAbsolute(kubeConfigFile)) errs.push(fieldErr.invalid(`${at}.connectionInfo.kubeConfigFile`, kubeConfigFile, 'must be an absolute path'));
    else {
      try {
        if (!statSync(kubeConfigFile).isFile()) errs.push(fieldErr.invalid(`${at}.connectionInfo.kubeConfigFile`, kubeConfigFile, 'must be a regular file'));
      } catch (err) {
        errs.push(fieldErr.invalid(`${at}.connectionInfo.kubeConfigFile`, kubeConfigFile, `error loading file: ${(err as Error).message}`));
      }
    }
  } else errs.push(fieldErr.notSupported(`${at}.connectionInfo.type`, connType, ['InClusterConfig', 'KubeConfigFile']));
  let matchConditions: CompiledExpression[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(fieldErr.tooMany(`${at}.matchConditions`, conditions.length, MAX_MATCH_CONDITIONS));
  else {
    const seen = new Set<string>();
    const expressions: { index: number; expression: string }[] = [];
    conditions.forEach((c, i) => {
      const expression = typeof obj(c)?.expression === 'string' ? (obj(c)!.expression as string) : '';
      const field = `${at}.matchConditions[${i}].expression`;
      if (expression.trim() === '') return void errs.push(fieldErr.required(field, ''));
      if (seen.has(expression)) return void errs.push(fieldErr.duplicate(field, expression));
      seen.add(expression);
      expressions.push({ index: i, expression });
    });
    const compiled = compileMatchConditions(expressions.map((e) => e.expression));
    for (const e of compiled.errors) errs.push(fieldErr.invalid(`${at}.matchConditions[${expressions[e.index]!.index}].expression`, expressions[e.index]!.expression, `compilation failed: ${e.message}`));
    matchConditions = compiled.compiled;
  }
  if (errs.length > before) return undefined;
  const cacheAuthorizedRequests = w.cacheAuthorizedRequests !== false;
  const cacheUnauthorizedRequests = w.cacheUnauthorizedRequests !== false;
  return {
    timeoutMs,
    authorizedTtlMs,
    unauthorizedTtlMs,
    cacheAuthorizedRequests,
    cacheUnauthorizedRequests,
    subjectAccessReviewVersion: sarVersion as 'v1' | 'v1beta1',
    failurePolicy: failurePolicy as FailurePolicy,
    kubeConfigFile,
    matchConditions,
  };
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
