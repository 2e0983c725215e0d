/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding:
 * schema, v1 defaults, kube's validation (every expression compiled, in the environment the
 * policy declares), the status subresource and the printed columns.
 */
import type { Schema } from '../../schema/types.ts';
import type { FieldError } from '../field-errors.ts';
import { fieldErr, fieldPath, goLiteral, goStringSlice } from '../field-errors.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { byteLength, DNS1123_LABEL_MAX_LENGTH, isDns1123Subdomain, isPathSegmentName, isQualifiedName, maxLenError, regexError } from '../validation/names.ts';
import { validateObjectMetaUpdate } from '../validation/metadata.ts';
import { arrField, labelSelectorSchema, objField, s, strField } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { validateRuleResources } from './admissionregistration.ts';
import { validateLabelSelector } from './rbac.ts';
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../registry/label-selector.ts';
import { compilePolicyExpression, isCelIdentifier, variableTypeOf, type Compiled, type ExpectedType, type ExpressionOptions, type PolicyVariable } from '../../admission/policy/expressions.ts';
import type { CelType } from '../../cel/index.ts';

export const ADMISSIONREGISTRATION_GROUP = 'admissionregistration.k8s.io';

// ---------------------------------------------------------------------------------------------
// Schema

const atomic = (schema: Schema): Schema => ({ ...schema, 'x-kubernetes-map-type': 'atomic' });
const atomicList = (description: string, items: Schema): Schema => ({ type: 'array', description, items, 'x-kubernetes-list-type': 'atomic' });

const namedRuleSchema = atomic(
  s.object('Operations and resources a rule matches, optionally narrowed to resource names.', {
    resourceNames: s.atomicStrings('Optional allow-list of object names; empty means all.'),
    operations: s.atomicStrings('CREATE, UPDATE, DELETE, CONNECT or `*`.'),
    apiGroups: s.atomicStrings('API groups the resources belong to; `*` is all groups.'),
    apiVersions: s.atomicStrings('API versions the resources belong to; `*` is all versions.'),
    resources: s.atomicStrings('Resources this rule applies to: `pods`, `pods/log`, `*`, `*/scale`, `pods/*`.'),
    scope: s.string('Cluster, Namespaced or `*` (the default).'),
  }),
);

const matchResourcesSchema = atomic(
  s.object('Which requests a policy or binding applies to.', {
    namespaceSelector: labelSelectorSchema,
    objectSelector: labelSelectorSchema,
    resourceRules: atomicList('Operations and resources that match.', namedRuleSchema),
    excludeResourceRules: atomicList('Operations and resources that never match.', namedRuleSchema),
    matchPolicy: s.string('Exact, or Equivalent (the default): also match the same resource in another group or version.'),
  }),
);

const validationSchema = s.object(
  'One CEL expression the request must satisfy.',
  {
    expression: s.string('A CEL expression that must evaluate to true.', { default: '' }),
    message: s.string('The message returned when the expression is false.'),
    reason: s.string('Forbidden, Invalid (the default) or RequestEntityTooLarge.'),
    messageExpression: s.string('A CEL expression computing the message when the expression is false.'),
  },
  { required: ['expression'] },
);

const policySpecSchema = s.object(
  'What a ValidatingAdmissionPolicy checks and which requests it may apply to.',
  {
    paramKind: atomic(s.object('The kind of the parameter objects bindings name.', { apiVersion: s.string('API group version of the parameter kind.'), kind: s.string('Kind of the parameters.') })),
    matchConstraints: matchResourcesSchema,
    validations: atomicList('The CEL expressions that validate a request.', validationSchema),
    failurePolicy: s.string('Fail (the default) or Ignore: what a configuration or evaluation error does.'),
    auditAnnotations: atomicList(
      'Audit annotations added to the request audit event.',
      s.object('A key and a CEL expression for its value.', { key: s.string('The annotation key, prefixed with the policy name.', { default: '' }), valueExpression: s.string('A CEL expression for the value.', { default: '' }) }, { required: ['key', 'valueExpression'] }),
    ),
    matchConditions: {
      type: 'array',
      description: 'CEL conditions a request must meet, all of them, for the policy to apply.',
      items: s.object('A named CEL condition.', { name: s.string('Identifier of the condition.', { default: '' }), expression: s.string('A CEL expression that must evaluate to bool.', { default: '' }) }, { required: ['name', 'expression'] }),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    },
    // A map list keyed by name (kube's +listType=map), each variable atomic.
    variables: {
      type: 'array',
      description: 'Named CEL expressions other expressions read as `variables.<name>`.',
      items: s.object('A named CEL expression.', { name: s.string('The variable name.', { default: '' }), expression: s.string('The CEL expression.', { default: '' }) }, { required: ['name', 'expression'], 'x-kubernetes-map-type': 'atomic' }),
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    },
  },
);

const conditionSchema = s.object(
  'One aspect of the current state.',
  {
    type: s.string('Type of condition in CamelCase.', { default: '' }),
    status: s.string('True, False or Unknown.', { default: '' }),
    observedGeneration: s.int64('The generation the condition was set for.'),
    lastTransitionTime: s.dateTime('Last time the condition changed status.'),
    reason: s.string('Programmatic identifier of the last transition.', { default: '' }),
    message: s.string('Human-readable message about the transition.', { default: '' }),
  },
  { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
);

const policyStatusSchema = s.object('The observed state of a ValidatingAdmissionPolicy.', {
  observedGeneration: s.int64('The generation the controller observed.'),
  typeChecking: s.object('The results of type checking each expression.', {
    expressionWarnings: atomicList(
      'Type checking warnings for each expression.',
      s.object('A warning about one expression.', { fieldRef: s.string('The path to the field of the expression.', { default: '' }), warning: s.string('The type checking information.', { default: '' }) }, { required: ['fieldRef', 'warning'] }),
    ),
  }),
  conditions: {
    type: 'array',
    description: 'The latest available observations of the policy.',
    items: conditionSchema,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
  },
});

const policySchema = kindSchema('A CEL policy the API server checks requests against, applied through bindings.', {
  spec: { ...policySpecSchema, default: {} },
  status: { ...policyStatusSchema, default: {} },
});

const bindingSchema = kindSchema('Binds a ValidatingAdmissionPolicy to parameters and to the requests it applies to.', {
  spec: {
    ...s.object('Which policy, with which parameters, for which requests, and what a failure does.', {
      policyName: s.string('The name of the ValidatingAdmissionPolicy.'),
      paramRef: atomic(
        s.object('The parameter object or objects of the binding.', {
          name: s.string('Name of the parameter object.'),
          namespace: s.string('Namespace of the parameter objects.'),
          selector: labelSelectorSchema,
          parameterNotFoundAction: s.string('Allow or Deny: what happens when no parameter object matches.'),
        }),
      ),
      matchResources: matchResourcesSchema,
      validationActions: { type: 'array', description: 'Deny, Warn and/or Audit.', items: { type: 'string', default: '' }, 'x-kubernetes-list-type': 'set' },
    }),
    default: {},
  },
});

// ---------------------------------------------------------------------------------------------
// Defaults (SetDefaults_ValidatingAdmissionPolicySpec, _MatchResources, _Rule)

function defaultMatchResources(m: Record<string, unknown> | undefined): void {
  if (m === undefined) return;
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    for (const rule of arrField(m, key)) {
      if (rule !== null && typeof rule === 'object' && (rule as Record<string, unknown>).scope === undefined) (rule as Record<string, unknown>).scope = '*';
    }
  }
}

function defaultPolicy(obj: KubeObject): void {
  const spec = objField(obj, 'spec');
  if (spec === undefined) return;
  spec.failurePolicy ??= 'Fail';
  defaultMatchResources(objField(spec, 'matchConstraints'));
}

function defaultBinding(obj: KubeObject): void {
  defaultMatchResources(objField(objField(obj, 'spec'), 'matchResources'));
}

// ---------------------------------------------------------------------------------------------
// Validation

const SUPPORTED_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SUPPORTED_SCOPES = ['*', 'Cluster', 'Namespaced'];
const SUPPORTED_FAILURE_POLICIES = ['Fail', 'Ignore'];
const SUPPORTED_MATCH_POLICIES = ['Equivalent', 'Exact'];
const SUPPORTED_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const SUPPORTED_ACTIONS = ['Audit', 'Deny', 'Warn'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_AUDIT_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const MAX_MATCH_CONDITIONS = 64;

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** apimachinery's IsDNS1035Label (versions and kinds of a paramKind). */
function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL_RE.test(value)) {
    errs.push(regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  }
  return errs;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : String(x))) : []);
const sliceLiteral = (values: readonly string[]) => goLiteral(goStringSlice(values));

function validateNamedRule(rule: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const r = (rule ?? {}) as Record<string, unknown>;
  strings(r.resourceNames).forEach((name, i) => {
    const p = fieldPath.index(fieldPath.child(path, 'resourceNames'), i);
    for (const msg of isPathSegmentName(name)) errs.push(fieldErr.invalid(p, name, msg));
    if (seen.has(name)) errs.push(fieldErr.duplicate(p, name));
    seen.add(name);
  });
  const ops = strings(r.operations);
  if (ops.length === 0) errs.push(fieldErr.required(fieldPath.child(path, 'operations'), ''));
  // The operation list is a typed slice in Go: %#v prints its type.
  if (ops.length > 1 && ops.includes('*')) {
    errs.push(fieldErr.invalid(fieldPath.child(path, 'operations'), goLiteral(`[]admissionregistration.OperationType{${ops.map((o) => JSON.stringify(o)).join(', ')}}`), "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!SUPPORTED_OPERATIONS.includes(op)) errs.push(fieldErr.notSupported(fieldPath.index(fieldPath.child(path, 'operations'), i), op, SUPPORTED_OPERATIONS));
  });
  const groups = strings(r.apiGroups);
  if (groups.length === 0) errs.push(fieldErr.required(fieldPath.child(path, 'apiGroups'), ''));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErr.invalid(fieldPath.child(path, 'apiGroups'), sliceLiteral(groups), "if '*' is present, must not specify other API groups"));
  const versions = strings(r.apiVersions);
  if (versions.length === 0) errs.push(fieldErr.required(fieldPath.child(path, 'apiVersions'), ''));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErr.invalid(fieldPath.child(path, 'apiVersions'), sliceLiteral(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErr.required(fieldPath.index(fieldPath.child(path, 'apiVersions'), i), ''));
  });
  errs.push(...validateRuleResources(strings(r.resources), fieldPath.child(path, 'resources')));
  if (typeof r.scope === 'string' && !SUPPORTED_SCOPES.includes(r.scope)) errs.push(fieldErr.notSupported(fieldPath.child(path, 'scope'), r.scope, SUPPORTED_SCOPES));
  return errs;
}

function validateMatchResources(m: Record<string, unknown> | undefined, path: string): FieldError[] {
  if (m === undefined) return [];
  const errs: FieldError[] = [];
  if (typeof m.matchPolicy !== 'string') errs.push(fieldErr.required(fieldPath.child(path, 'matchPolicy'), ''));
  else if (!SUPPORTED_MATCH_POLICIES.includes(m.matchPolicy)) errs.push(fieldErr.notSupported(fieldPath.child(path, 'matchPolicy'), m.matchPolicy, SUPPORTED_MATCH_POLICIES));
  for (const sel of ['namespaceSelector', 'objectSelector']) {
    if (m[sel] === undefined || m[sel] === null) errs.push(fieldErr.required(fieldPath.child(path, sel), ''));
    else errs.push(...validateLabelSelector(m[sel], fieldPath.child(path, sel)));
  }
  for (const key of ['resourceRules', 'excludeResourceRules']) {
    arrField(m, key).forEach((rule, i) => errs.push(...validateNamedRule(rule, fieldPath.index(fieldPath.child(path, key), i))));
  }
  return errs;
}

function expressionError(path: string, expression: string, expected: ExpectedType, opts: ExpressionOptions): FieldError[] {
  return errorsOf(path, expression, compilePolicyExpression(expression, expected, opts));
}

function errorsOf(path: string, expression: string, compiled: Compiled): FieldError[] {
  if (compiled.ok) return [];
  return [compiled.internal === true ? { type: 'InternalError', field: path, detail: compiled.detail } : fieldErr.invalid(path, expression, compiled.detail)];
}

/** The expressions of the stored policy: kube compiles those an update keeps in the `stored` environment. */
interface Preexisting {
  readonly matchConditions: ReadonlySet<string>;
  readonly validations: ReadonlySet<string>;
  readonly messages: ReadonlySet<string>;
  readonly auditValues: ReadonlySet<string>;
}

function preexistingOf(old: KubeObject | null): Preexisting {
  const spec = objField(old, 'spec');
  const set = (key: string, field: string) => new Set(arrField(spec, key).map((x) => strField(x, field)).filter((x) => x !== ''));
  return {
    matchConditions: set('matchConditions', 'expression'),
    validations: set('validations', 'expression'),
    messages: set('validations', 'messageExpression'),
    auditValues: set('auditAnnotations', 'valueExpression'),
  };
}

const envOf = (set: ReadonlySet<string> | undefined, expression: string) => (set?.has(expression) ? 'stored' : 'new') as 'stored' | 'new';

function validatePolicySpec(obj: KubeObject, old: KubeObject | null): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objField(obj, 'spec') ?? {};
  const pre = old ? preexistingOf(old) : undefined;
  const paramKind = objField(spec, 'paramKind');
  const hasParams = paramKind !== undefined;
  const hasVariables = arrField(spec, 'variables').length > 0;

  const failurePolicy = spec.failurePolicy;
  if (typeof failurePolicy !== 'string') errs.push(fieldErr.required('spec.failurePolicy', ''));
  else if (!SUPPORTED_FAILURE_POLICIES.includes(failurePolicy)) errs.push(fieldErr.notSupported('spec.failurePolicy', failurePolicy, SUPPORTED_FAILURE_POLICIES));
  if (paramKind !== undefined) errs.push(...validateParamKind(paramKind));
  const constraints = objField(spec, 'matchConstraints');
  if (constraints === undefined) errs.push(fieldErr.required('spec.matchConstraints', ''));
  else {
    errs.push(...validateMatchResources(constraints, 'spec.matchConstraints'));
    // At least one rule: the rules say which kinds the expressions are about.
    if (arrField(constraints, 'resourceRules').length === 0) errs.push(fieldErr.required('spec.matchConstraints.resourceRules', ''));
  }

  // kube skips re-validating match conditions an update leaves unchanged (with the same paramKind).
  const ignoreMatchConditions =
    old !== null &&
    JSON.stringify(objField(old, 'spec')?.paramKind ?? null) === JSON.stringify(spec.paramKind ?? null) &&
    JSON.stringify(objField(old, 'spec')?.matchConditions ?? null) === JSON.stringify(spec.matchConditions ?? null);
  if (!ignoreMatchConditions) {
    const conditions = arrField(spec, 'matchConditions');
    if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(fieldErr.tooMany('spec.matchConditions', conditions.length, MAX_MATCH_CONDITIONS));
    const names = new Set<string>();
    conditions.forEach((c, i) => {
      const path = fieldPath.index('spec.matchConditions', i);
      const expression = strField(c, 'expression').trim();
      if (expression === '') errs.push(fieldErr.required(fieldPath.child(path, 'expression'), ''));
      else errs.push(...expressionError(fieldPath.child(path, 'expression'), expression, 'bool', { hasParams, hasAuthorizer: true, hasVariables: false, environment: envOf(pre?.matchConditions, expression) }));
      const name = strField(c, 'name');
      if (name === '') errs.push(fieldErr.required(fieldPath.child(path, 'name'), ''));
      else for (const msg of isQualifiedName(name)) errs.push(fieldErr.invalid(fieldPath.child(path, 'name'), name, msg));
      if (name !== '') {
        if (names.has(name)) errs.push(fieldErr.duplicate(fieldPath.child(path, 'name'), name));
        names.add(name);
      }
    });
  }

  // Each variable is declared once compiled, typed by its expression, for the ones after it and every validation.
  const declared: PolicyVariable[] = [];
  arrField(spec, 'variables').forEach((v, i) => {
    const path = fieldPath.index('spec.variables', i);
    const name = strField(v, 'name');
    if (name.trim() === '') errs.push(fieldErr.required(fieldPath.child(path, 'name'), 'name is not specified'));
    else if (!isCelIdentifier(name)) errs.push(fieldErr.invalid(fieldPath.child(path, 'name'), name, 'name is not a valid CEL identifier'));
    const expression = strField(v, 'expression');
    let type: CelType = { kind: 'dyn' };
    if (expression.trim() === '') errs.push(fieldErr.required(fieldPath.child(path, 'expression'), 'expression is not specified'));
    else {
      const compiled = compilePolicyExpression(expression, 'any', { hasParams, hasAuthorizer: true, hasVariables: true, variables: [...declared], environment: envOf(pre?.validations, expression) });
      errs.push(...errorsOf(fieldPath.child(path, 'expression'), expression, compiled));
      type = variableTypeOf(compiled);
    }
    declared.push({ name, type });
  });

  const validations = arrField(spec, 'validations');
  const audits = arrField(spec, 'auditAnnotations');
  if (validations.length === 0 && audits.length === 0) {
    errs.push(fieldErr.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErr.required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validateValidation(v, fieldPath.index('spec.validations', i), hasParams, hasVariables ? declared : undefined, pre)));
  if (audits.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(fieldErr.invalid('spec.auditAnnotations', goLiteral('[]admissionregistration.AuditAnnotation{...}'), `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const keys = new Set<string>();
  const policyName = obj.metadata?.name ?? '';
  audits.forEach((a, i) => {
    const path = fieldPath.index('spec.auditAnnotations', i);
    const key = strField(a, 'key');
    if (policyName !== '') for (const msg of isQualifiedName(`${policyName}/${key}`)) errs.push(fieldErr.invalid(fieldPath.child(path, 'key'), `${policyName}/${key}`, msg));
    else errs.push(fieldErr.invalid(fieldPath.child(path, 'key'), key, 'requires metadata.name be non-empty'));
    const value = strField(a, 'valueExpression');
    const trimmed = value.trim();
    if (trimmed === '') errs.push(fieldErr.required(fieldPath.child(path, 'valueExpression'), 'valueExpression is not specified'));
    else if (trimmed.length > MAX_AUDIT_VALUE_EXPRESSION_LENGTH) errs.push(fieldErr.required(fieldPath.child(path, 'valueExpression'), `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION_LENGTH} bytes in length`));
    else {
      const compiled = compilePolicyExpression(trimmed, 'stringOrNull', { hasParams, hasAuthorizer: true, hasVariables, variables: declared, environment: envOf(pre?.auditValues, value) });
      if (!compiled.ok) errs.push(fieldErr.invalid(fieldPath.child(path, 'valueExpression'), value, compiled.detail));
    }
    if (keys.has(key)) errs.push(fieldErr.duplicate(fieldPath.child(path, 'key'), key));
    keys.add(key);
  });
  return errs;
}

function validateValidation(v: unknown, path: string, hasParams: boolean, variables: readonly PolicyVariable[] | undefined, pre: Preexisting | undefined): FieldError[] {
  const hasVariables = variables !== undefined;
  const errs: FieldError[] = [];
  const expression = strField(v, 'expression');
  const message = strField(v, 'message');
  const messageExpression = strField(v, 'messageExpression');
  if (expression.trim() === '') errs.push(fieldErr.required(fieldPath.child(path, 'expression'), 'expression is not specified'));
  else errs.push(...expressionError(fieldPath.child(path, 'expression'), expression, 'bool', { hasParams, hasAuthorizer: true, hasVariables, variables, environment: envOf(pre?.validations, expression) }));
  if (messageExpression.length > 0 && messageExpression.trim() === '') {
    errs.push(fieldErr.invalid(fieldPath.child(path, 'messageExpression'), messageExpression, 'must be non-empty if specified'));
  } else if (messageExpression.trim() !== '') {
    // kube compiles messageExpression without the authorizer, and with params only when the policy has a paramKind.
    errs.push(...expressionError(fieldPath.child(path, 'messageExpression'), messageExpression, 'string', { hasParams, hasAuthorizer: false, hasVariables, variables, environment: envOf(pre?.messages, messageExpression) }));
  }
  const trimmedMessage = message.trim();
  if (message.length > 0 && trimmedMessage === '') errs.push(fieldErr.invalid(fieldPath.child(path, 'message'), message, 'message must be non-empty if specified'));
  else if (/[\n\r]/.test(trimmedMessage)) errs.push(fieldErr.invalid(fieldPath.child(path, 'message'), message, 'message must not contain line breaks'));
  const reason = (v as Record<string, unknown> | null)?.reason;
  if (typeof reason === 'string' && !SUPPORTED_REASONS.includes(reason)) errs.push(fieldErr.notSupported(fieldPath.child(path, 'reason'), reason, SUPPORTED_REASONS));
  return errs;
}

function validateParamKind(pk: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = strField(pk, 'apiVersion');
  const path = 'spec.paramKind.apiVersion';
  if (apiVersion === '') errs.push(fieldErr.required(path, ''));
  else if ((apiVersion.match(/\//g) ?? []).length > 1) errs.push(fieldErr.invalid(path, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  else if (apiVersion !== '/') {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (group !== '') {
      const msgs = isDns1123Subdomain(group);
      if (msgs.length > 0) errs.push(fieldErr.invalid(path, group, msgs.join(',')));
    }
    if (version === '') errs.push(fieldErr.invalid(path, apiVersion, 'version must be specified'));
    else {
      const msgs = isDns1035Label(version);
      if (msgs.length > 0) errs.push(fieldErr.invalid(path, version, msgs.join(',')));
    }
  }
  const kind = strField(pk, 'kind');
  if (kind === '') errs.push(fieldErr.required('spec.paramKind.kind', ''));
  else {
    const msgs = isDns1035Label(kind.toLowerCase());
    if (msgs.length > 0) errs.push(fieldErr.invalid('spec.paramKind.kind', kind, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
  }
  return errs;
}

function validateBindingSpec(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objField(obj, 'spec') ?? {};
  const policyName = strField(spec, 'policyName');
  if (policyName === '') errs.push(fieldErr.required('spec.policyName', ''));
  else for (const msg of isDns1123Subdomain(policyName)) errs.push(fieldErr.invalid('spec.policyName', policyName, msg));
  const ref = objField(spec, 'paramRef');
  if (ref !== undefined) {
    const name = strField(ref, 'name');
    const hasSelector = ref.selector !== undefined && ref.selector !== null;
    if (name !== '') {
      for (const msg of isPathSegmentName(name)) errs.push(fieldErr.invalid('spec.paramRef.name', name, msg));
      if (hasSelector) errs.push(fieldErr.forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
    }
    if (hasSelector) {
      errs.push(...validateLabelSelector(ref.selector, 'spec.paramRef.selector'));
      if (name !== '') errs.push(fieldErr.forbidden('spec.paramRef.selector', 'name and selector are mutually exclusive'));
    }
    if (name === '' && !hasSelector) errs.push(fieldErr.required('spec.paramRef', 'one of name or selector must be specified'));
    const action = strField(ref, 'parameterNotFoundAction');
    if (action === '') errs.push(fieldErr.required('spec.paramRef.parameterNotFoundAction', ''));
    else if (action !== 'Deny' && action !== 'Allow') errs.push(fieldErr.notSupported('spec.paramRef.parameterNotFoundAction', action, ['Deny', 'Allow']));
  }
  errs.push(...validateMatchResources(objField(spec, 'matchResources'), 'spec.matchResources'));
  const actions = strings(spec.validationActions);
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    const p = fieldPath.index('spec.validationActions', i);
    if (!SUPPORTED_ACTIONS.includes(a)) errs.push(fieldErr.notSupported(p, a, SUPPORTED_ACTIONS));
    if (seen.has(a)) errs.push(fieldErr.duplicate(p, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(
      fieldErr.invalid(
        'spec.validationActions',
        goLiteral(`[]admissionregistration.ValidationAction{${actions.map((a) => JSON.stringify(a)).join(', ')}}`),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (seen.size === 0) errs.push(fieldErr.required('spec.validationActions', 'at least one validation action is required'));
  return errs;
}

/** ValidateValidatingAdmissionPolicyStatusUpdate: every warning needs a fieldRef and a text. */
function validatePolicyStatus(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  arrField(objField(objField(obj, 'status'), 'typeChecking'), 'expressionWarnings').forEach((w, i) => {
    const path = fieldPath.index('status.typeChecking.expressionWarnings', i);
    if (strField(w, 'warning') === '') errs.push(fieldErr.required(fieldPath.child(path, 'warning'), ''));
    if (strField(w, 'fieldRef').trim() === '') errs.push(fieldErr.required(fieldPath.child(path, 'fieldRef'), ''));
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Columns

function paramKindCell(obj: KubeObject): string {
  const pk = objField(objField(obj, 'spec'), 'paramKind');
  return pk === undefined ? '<unset>' : `${strField(pk, 'apiVersion')}/${strField(pk, 'kind')}`;
}

function paramRefCell(obj: KubeObject): string {
  const ref = objField(objField(obj, 'spec'), 'paramRef');
  if (ref === undefined) return '<unset>';
  const ns = strField(ref, 'namespace');
  const name = strField(ref, 'name');
  if (name !== '') return ns !== '' ? `${ns}/${name}` : name;
  const selector = labelSelectorFromObject(ref.selector as LabelSelectorObject | undefined).toString();
  return `${ns !== '' ? ns : '*'}/${selector !== '' ? selector : '*'}`;
}

export const validatingAdmissionPolicyType: ResourceType = {
  group: ADMISSIONREGISTRATION_GROUP,
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  kind: 'ValidatingAdmissionPolicy',
  listKind: 'ValidatingAdmissionPolicyList',
  singular: 'validatingadmissionpolicy',
  namespaced: false,
  shortNames: [],
  categories: ['api-extensions'],
  schema: policySchema,
  hasStatus: true,
  tracksGeneration: true,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    { name: 'Validations', type: 'integer', description: 'Validations indicates the number of validation rules defined in this configuration', priority: 0, cell: (obj) => arrField(objField(obj, 'spec'), 'validations').length },
    stringColumn('ParamKind', 'ParamKind specifies the kind of resources used to parameterize this policy', paramKindCell),
    ageColumn,
  ],
  fieldSelectors: {},
  strategy: {
    defaults: defaultPolicy,
    // The status belongs to the controller: a create starts without one, an update keeps the stored one.
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    prepareForUpdate: (obj, old) => {
      obj.status = old.status ?? {};
    },
    validate: (obj) => validatePolicySpec(obj, null),
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validatePolicySpec(obj, old)],
    subresources: {
      status: {
        // kube's status strategy: a status write may not change the spec.
        prepareForUpdate: (obj, old) => {
          const status = obj.status ?? {};
          delete obj.status;
          obj.spec = structuredClone(old.spec ?? {});
          obj.status = status;
        },
        validateUpdate: (obj) => validatePolicyStatus(obj),
      },
    },
  },
  storagePrefix: '/registry/validatingadmissionpolicies/',
};

export const validatingAdmissionPolicyBindingType: ResourceType = {
  group: ADMISSIONREGISTRATION_GROUP,
  version: 'v1',
  resource: 'validatingadmissionpolicybindings',
  kind: 'ValidatingAdmissionPolicyBinding',
  listKind: 'ValidatingAdmissionPolicyBindingList',
  singular: 'validatingadmissionpolicybinding',
  namespaced: false,
  shortNames: [],
  categories: ['api-extensions'],
  schema: bindingSchema,
  hasStatus: false,
  tracksGeneration: true,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    stringColumn('PolicyName', 'PolicyName indicates the policy definition which the policy binding binded to', (obj) => strField(obj, 'spec', 'policyName')),
    stringColumn('ParamRef', 'ParamRef indicates the param resource which sets the configration param', paramRefCell),
    ageColumn,
  ],
  fieldSelectors: {},
  strategy: {
    defaults: defaultBinding,
    validate: validateBindingSpec,
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateBindingSpec(obj)],
  },
  storagePrefix: '/registry/validatingadmissionpolicybindings/',
};
