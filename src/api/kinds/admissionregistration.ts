/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and ValidatingWebhookConfiguration:
 * which requests are sent to which admission webhooks. Defaults and validation are kube's
 * (pkg/apis/admissionregistration/v1 defaults, validation.go), with its messages.
 */
import type { FieldError } from '../field-errors.ts';
import { fieldErr, fieldPath, goLiteral, goStringSlice } from '../field-errors.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import type { Schema } from '../../schema/types.ts';
import { byteLength, isDns1123Subdomain, isQualifiedName, regexError } from '../validation/names.ts';
import { arrField, labelSelectorSchema, objField, s } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';
import { validateLabelSelector } from './rbac.ts';
import { ADMISSION_REQUEST_TYPE, compile, isCompileError, outputType } from '../../cel/index.ts';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';

const strings = (d: string): Schema => s.atomicStrings(d);

const ruleSchema: Schema = s.object('Operations and resources a webhook cares about; a request matches when every list matches.', {
  operations: strings('CREATE, UPDATE, DELETE, CONNECT, or * for all.'),
  apiGroups: strings('API groups the resources belong to; * is all groups.'),
  apiVersions: strings('API versions the resources belong to; * is all versions.'),
  resources: strings('Resources, `resource/subresource`, with * wildcards.'),
  scope: s.string('Cluster, Namespaced or *.', { default: '*' }),
});

const clientConfigSchema: Schema = s.object('How to reach the webhook.', {
  url: s.string('The https URL of the webhook.'),
  service: s.object('A reference to the service of the webhook.', {
    namespace: s.string('Namespace of the service.', { default: '' }),
    name: s.string('Name of the service.', { default: '' }),
    path: s.string('URL path requests are sent to.'),
    port: { ...s.int32('Port of the service.'), default: 443 },
  }, { required: ['namespace', 'name'] }),
  caBundle: s.string('PEM bundle of the webhook\'s serving certificate authority, base64 on the wire.', { format: 'byte' }),
});

const matchConditionSchema: Schema = s.object('A CEL condition the request must meet to be sent.', {
  name: s.string('Identifies the condition.', { default: '' }),
  expression: s.string('A CEL expression over object, oldObject, request and authorizer; must evaluate to bool.', { default: '' }),
}, { required: ['name', 'expression'] });

function webhookSchema(mutating: boolean): Schema {
  return s.object(`One ${mutating ? 'mutating' : 'validating'} admission webhook and the requests it is sent.`, {
    name: s.string('Fully qualified name of the webhook.', { default: '' }),
    clientConfig: s.object(clientConfigSchema.description!, clientConfigSchema.properties!, { default: {} }),
    rules: { type: 'array', description: 'Operations and resources the webhook cares about.', items: ruleSchema, 'x-kubernetes-list-type': 'atomic' },
    failurePolicy: s.string('Ignore or Fail.', { default: 'Fail' }),
    matchPolicy: s.string('Exact or Equivalent.', { default: 'Equivalent' }),
    namespaceSelector: { ...labelSelectorSchema, default: {} },
    objectSelector: { ...labelSelectorSchema, default: {} },
    sideEffects: s.string('None or NoneOnDryRun.'),
    timeoutSeconds: { ...s.int32('Seconds to wait for the webhook, 1 to 30.'), default: 10 },
    admissionReviewVersions: strings('AdmissionReview versions the webhook accepts, in order of preference.'),
    ...(mutating ? { reinvocationPolicy: s.string('Never or IfNeeded.', { default: 'Never' }) } : {}),
    matchConditions: {
      type: 'array',
      description: 'Conditions the request must meet; at most 64.',
      items: matchConditionSchema,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    },
  }, { required: ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'] });
}

function configurationSchema(mutating: boolean): Schema {
  return kindSchema(`Admission webhooks that ${mutating ? 'may change' : 'accept or reject'} objects, and the requests they are sent.`, {
    webhooks: {
      type: 'array',
      description: 'The webhooks and the requests each is sent.',
      items: webhookSchema(mutating),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    },
  });
}

const sorted = (v: string[]) => [...v].sort();
const failurePolicies = sorted(['Ignore', 'Fail']);
const matchPolicies = sorted(['Exact', 'Equivalent']);
const noSideEffects = sorted(['None', 'NoneOnDryRun']);
const operations = sorted(['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
const reinvocationPolicies = sorted(['Never', 'IfNeeded']);
const scopes = sorted(['Cluster', 'Namespaced', '*']);
export const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/** utilvalidation.IsFullyQualifiedName. */
function fullyQualifiedNameErrors(path: string, name: string): FieldError[] {
  if (name === '') return [fieldErr.required(path, '')];
  const errs = isDns1123Subdomain(name);
  if (errs.length > 0) return [fieldErr.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldErr.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);
const goSlice = (type: string, values: string[]) => goLiteral(`${type}{${values.map((v) => JSON.stringify(v)).join(', ')}}`);

/** kube's validateResources for rule resources (`res`, `res/sub`, wildcards), shared by webhooks and admission policies. */
export function validateRuleResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErr.required(path, ''));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(fieldErr.required(fieldPath.index(path, i), ''));
      return;
    }
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldErr.invalid(fieldPath.index(path, i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErr.invalid(fieldPath.index(path, i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fieldErr.invalid(path, goLiteral(goStringSlice(resources)), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(fieldErr.invalid(path, goLiteral(goStringSlice(resources)), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(rule: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const r = (rule ?? {}) as Record<string, unknown>;
  const ops = strList(r.operations);
  const p = (c: string) => fieldPath.child(path, c);
  if (ops.length === 0) errs.push(fieldErr.required(p('operations'), ''));
  if (ops.length > 1 && ops.includes('*')) errs.push(fieldErr.invalid(p('operations'), goSlice('[]admissionregistration.OperationType', ops), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!operations.includes(op)) errs.push(fieldErr.notSupported(fieldPath.index(p('operations'), i), op, operations));
  });
  const groups = strList(r.apiGroups);
  if (groups.length === 0) errs.push(fieldErr.required(p('apiGroups'), ''));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErr.invalid(p('apiGroups'), goSlice('[]string', groups), "if '*' is present, must not specify other API groups"));
  const versions = strList(r.apiVersions);
  if (versions.length === 0) errs.push(fieldErr.required(p('apiVersions'), ''));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErr.invalid(p('apiVersions'), goSlice('[]string', versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErr.required(fieldPath.index(p('apiVersions'), i), ''));
  });
  errs.push(...validateRuleResources(strList(r.resources), p('resources')));
  if (typeof r.scope === 'string' && !scopes.includes(r.scope)) errs.push(fieldErr.notSupported(p('scope'), r.scope, scopes));
  return errs;
}

/** webhook.ValidateWebhookURL with https forced. */
export function webhookUrlErrors(path: string, raw: string): FieldError[] {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try {
    u = new URL(raw);
  } catch (err) {
    return [fieldErr.required(path, `url must be a valid URL: parse ${JSON.stringify(raw)}: ${(err as Error).message}${form}`)];
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(fieldErr.invalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(fieldErr.invalid(path, u.host, `host must be specified${form}`));
  if (u.username || u.password) errs.push(fieldErr.invalid(path, decodeURIComponent(u.username) + (raw.includes(`${u.username}:`) ? `:${decodeURIComponent(u.password)}` : ''), 'user information is not permitted in the URL'));
  const hash = raw.indexOf('#');
  if (hash >= 0 && hash < raw.length - 1) errs.push(fieldErr.invalid(path, raw.slice(hash + 1), 'fragments are not permitted in the URL'));
  const q = raw.indexOf('?');
  const rawQuery = q >= 0 ? raw.slice(q + 1, hash > q ? hash : undefined) : '';
  if (rawQuery !== '') errs.push(fieldErr.invalid(path, rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

function serviceErrors(path: string, svc: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const p = (c: string) => fieldPath.child(path, c);
  if (!svc.name) errs.push(fieldErr.required(p('name'), 'service name is required'));
  if (!svc.namespace) errs.push(fieldErr.required(p('namespace'), 'service namespace is required'));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  if (port < 1 || port > 65535) errs.push(fieldErr.invalid(p('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (typeof svc.path !== 'string') return errs;
  const urlPath = svc.path;
  if (urlPath === '/' || urlPath === '') return errs;
  if (urlPath === '//') {
    errs.push(fieldErr.invalid(p('path'), urlPath, 'segment[0] may not be empty'));
    return errs;
  }
  if (!urlPath.startsWith('/')) {
    errs.push(fieldErr.invalid(p('path'), urlPath, "must start with a '/'"));
  }
  let check = urlPath.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') errs.push(fieldErr.invalid(p('path'), urlPath, `segment[${i}] may not be empty`));
    else for (const f of isDns1123Subdomain(step)) errs.push(fieldErr.invalid(p('path'), urlPath, `segment[${i}]: ${f}`));
  });
  return errs;
}

/** The variables a match condition may name (kube's admission CEL environment, without params). */
export const MATCH_CONDITION_VARIABLES = {
  object: { type: 'dyn' },
  oldObject: { type: 'dyn' },
  request: { type: ADMISSION_REQUEST_TYPE },
  authorizer: { type: 'dyn' },
  authorizer_requestResource: { type: 'dyn' },
} as const;

function matchConditionErrors(conds: unknown[], path: string, oldExpressions: ReadonlySet<string> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (conds.length > 64) errs.push(fieldErr.tooMany(path, conds.length, 64));
  const names = new Set<string>();
  conds.forEach((c, i) => {
    const p = fieldPath.index(path, i);
    const cond = (c ?? {}) as Record<string, unknown>;
    const expr = String(cond.expression ?? '').trim();
    if (expr === '') errs.push(fieldErr.required(fieldPath.child(p, 'expression'), ''));
    else {
      const compiled = compile(expr, { variables: MATCH_CONDITION_VARIABLES, expressions: oldExpressions?.has(String(cond.expression)) ? 'stored' : 'new' });
      if (isCompileError(compiled)) errs.push(fieldErr.invalid(fieldPath.child(p, 'expression'), expr, `compilation failed: ${compiled.celGoText}`));
      else {
        // The checked program's result type; dyn passes, as in kube.
        const type = outputType(compiled);
        if (type !== 'bool' && type !== 'dyn') errs.push(fieldErr.invalid(fieldPath.child(p, 'expression'), expr, `must evaluate to bool but got ${type}`));
      }
    }
    const name = String(cond.name ?? '');
    if (name === '') errs.push(fieldErr.required(fieldPath.child(p, 'name'), ''));
    else for (const msg of isQualifiedName(name)) errs.push(fieldErr.invalid(fieldPath.child(p, 'name'), name, msg));
    if (name !== '') {
      if (names.has(name)) errs.push(fieldErr.duplicate(fieldPath.child(p, 'name'), name));
      else names.add(name);
    }
  });
  return errs;
}

const dns1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function reviewVersionErrors(versions: string[], path: string, requireRecognized: boolean): FieldError[] {
  if (versions.length === 0) return [fieldErr.required(path, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let accepted = false;
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErr.invalid(fieldPath.index(path, i), v, 'duplicate version'));
      return;
    }
    seen.add(v);
    if (byteLength(v) > 63) errs.push(fieldErr.invalid(fieldPath.index(path, i), v, 'must be no more than 63 characters'));
    if (!dns1035.test(v)) {
      errs.push(
        fieldErr.invalid(
          fieldPath.index(path, i),
          v,
          regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", '[a-z]([-a-z0-9]*[a-z0-9])?', 'my-name', 'abc-123'),
        ),
      );
    }
    if (ACCEPTED_REVIEW_VERSIONS.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(fieldErr.invalid(path, goLiteral(goStringSlice(versions)), `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

interface ValidationOptions {
  readonly requireNoSideEffects: boolean;
  readonly requireRecognizedVersion: boolean;
  readonly requireUniqueNames: boolean;
  /** Match conditions unchanged from the stored object are not compiled again (kube's ignoreMatchConditions). */
  readonly ignoreMatchConditions: boolean;
  readonly oldExpressions?: ReadonlySet<string>;
}

function validateWebhook(hook: Record<string, unknown>, path: string, mutating: boolean, opts: ValidationOptions): FieldError[] {
  const p = (c: string) => fieldPath.child(path, c);
  const errs = fullyQualifiedNameErrors(p('name'), String(hook.name ?? ''));
  arrField(hook, 'rules').forEach((r, i) => errs.push(...validateRule(r, fieldPath.index(p('rules'), i))));
  if (typeof hook.failurePolicy === 'string' && !failurePolicies.includes(hook.failurePolicy)) errs.push(fieldErr.notSupported(p('failurePolicy'), hook.failurePolicy, failurePolicies));
  if (typeof hook.matchPolicy === 'string' && !matchPolicies.includes(hook.matchPolicy)) errs.push(fieldErr.notSupported(p('matchPolicy'), hook.matchPolicy, matchPolicies));
  const allowedSideEffects = opts.requireNoSideEffects ? noSideEffects : sorted(['None', 'NoneOnDryRun', 'Some', 'Unknown']);
  if (typeof hook.sideEffects !== 'string') errs.push(fieldErr.required(p('sideEffects'), `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(hook.sideEffects)) errs.push(fieldErr.notSupported(p('sideEffects'), hook.sideEffects, allowedSideEffects));
  if (typeof hook.timeoutSeconds === 'number' && (hook.timeoutSeconds > 30 || hook.timeoutSeconds < 1)) {
    errs.push(fieldErr.invalid(p('timeoutSeconds'), hook.timeoutSeconds, 'the timeout value must be between 1 and 30 seconds'));
  }
  if (hook.namespaceSelector) errs.push(...validateLabelSelector(hook.namespaceSelector, p('namespaceSelector')));
  if (hook.objectSelector) errs.push(...validateLabelSelector(hook.objectSelector, p('objectSelector')));
  if (mutating && typeof hook.reinvocationPolicy === 'string' && !reinvocationPolicies.includes(hook.reinvocationPolicy)) {
    errs.push(fieldErr.notSupported(p('reinvocationPolicy'), hook.reinvocationPolicy, reinvocationPolicies));
  }
  const cc = (hook.clientConfig ?? {}) as Record<string, unknown>;
  const hasUrl = typeof cc.url === 'string';
  const hasService = cc.service !== undefined && cc.service !== null;
  if (hasUrl === hasService) errs.push(fieldErr.required(p('clientConfig'), 'exactly one of url or service is required'));
  else if (hasUrl) errs.push(...webhookUrlErrors(fieldPath.child(p('clientConfig'), 'url'), cc.url as string));
  else errs.push(...serviceErrors(fieldPath.child(p('clientConfig'), 'service'), cc.service as Record<string, unknown>));
  if (!opts.ignoreMatchConditions) errs.push(...matchConditionErrors(arrField(hook, 'matchConditions'), p('matchConditions'), opts.oldExpressions));
  return errs;
}

function validateConfiguration(obj: KubeObject, mutating: boolean, opts: ValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  arrField(obj, 'webhooks').forEach((h, i) => {
    const hook = (h ?? {}) as Record<string, unknown>;
    const path = fieldPath.index('webhooks', i);
    errs.push(...validateWebhook(hook, path, mutating, opts));
    errs.push(...reviewVersionErrors(strList(hook.admissionReviewVersions), fieldPath.child(path, 'admissionReviewVersions'), opts.requireRecognizedVersion));
    const name = String(hook.name ?? '');
    if (opts.requireUniqueNames && name !== '') {
      if (names.has(name)) errs.push(fieldErr.duplicate(fieldPath.child(path, 'name'), name));
      else names.add(name);
    }
  });
  return errs;
}

const createOptions: ValidationOptions = { requireNoSideEffects: true, requireRecognizedVersion: true, requireUniqueNames: true, ignoreMatchConditions: false };

/** On update kube relaxes each rule the stored object already breaks, so old objects stay writable. */
function updateOptions(obj: KubeObject, old: KubeObject): ValidationOptions {
  const hooks = arrField(old, 'webhooks').map((h) => (h ?? {}) as Record<string, unknown>);
  const newHooks = arrField(obj, 'webhooks').map((h) => (h ?? {}) as Record<string, unknown>);
  const names = hooks.map((h) => String(h.name ?? ''));
  return {
    requireNoSideEffects: hooks.every((h) => noSideEffects.includes(String(h.sideEffects))),
    requireRecognizedVersion: hooks.every((h) => strList(h.admissionReviewVersions).length === 0 || strList(h.admissionReviewVersions).some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))),
    requireUniqueNames: new Set(names).size === names.length,
    ignoreMatchConditions: hooks.length === newHooks.length && hooks.every((h, i) => JSON.stringify(h.matchConditions ?? null) === JSON.stringify(newHooks[i]!.matchConditions ?? null)),
    oldExpressions: new Set(hooks.flatMap((h) => arrField(h, 'matchConditions').map((c) => String((c as Record<string, unknown>)?.expression ?? '')))),
  };
}

function webhookConfigurationType(mutating: boolean): ResourceType {
  const kind = mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  const resource = mutating ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  return {
    group: ADMISSION_GROUP,
    version: 'v1',
    resource,
    kind,
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    namespaced: false,
    shortNames: [],
    categories: ['api-extensions'],
    schema: configurationSchema(mutating),
    hasStatus: false,
    tracksGeneration: true,
    nameValidation: 'dns1123-subdomain',
    tableColumns: [nameColumn(), stringColumn('Webhooks', 'The number of webhooks.', (o) => arrField(o, 'webhooks').length), ageColumn],
    fieldSelectors: {},
    strategy: {
      validate: (obj) => validateConfiguration(obj, mutating, createOptions),
      validateUpdate: (obj, old) => validateConfiguration(obj, mutating, updateOptions(obj, old)),
    },
    storagePrefix: `/registry/${ADMISSION_GROUP}/${resource}/`,
  };
}

export const mutatingWebhookConfigurationType = webhookConfigurationType(true);
export const validatingWebhookConfigurationType = webhookConfigurationType(false);
