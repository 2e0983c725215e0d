/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding, with kube's
 * rule, subject and roleRef validation. Escalation checks belong to the authorizer, not here.
 */
import { goWire } from '../../codec/go-zero.ts';
import type { FieldError } from '../field-errors.ts';
import { fieldErr, fieldPath, goLiteral, goStringSlice, type GoLiteral } from '../field-errors.ts';
import type { KubeObject, ResourceType, TableColumn } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import { validateLabels, validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaOptions } from '../validation/metadata.ts';

/** kube's ValidateRBACName is a path-segment name check. */
const RBAC_NAMESPACED_META: ObjectMetaOptions = { namespaced: true, nameValidation: 'path-segment' };
const RBAC_CLUSTER_META: ObjectMetaOptions = { namespaced: false, nameValidation: 'path-segment' };
import { isDns1123Subdomain, isPathSegmentName, isQualifiedName } from '../validation/names.ts';
import { arrField, labelSelectorSchema, objField, s, strField } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../registry/label-selector.ts';
import { ageColumn, createdAtColumn, nameColumn, stringColumn } from './table-columns.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

const policyRuleSchema = s.object(
  'An action on resources or non-resource URLs that a role allows.',
  {
    // No omitempty on verbs (nor on a role's rules): Go writes null when empty (go-zero.ts).
    verbs: goWire.always(s.atomicStrings('Verbs that apply to all resources in this rule; `*` means all.')),
    apiGroups: s.atomicStrings('API groups of the resources; "" is the core group, `*` all groups.'),
    resources: s.atomicStrings('Resources this rule applies to; `*` means all in the groups.'),
    resourceNames: s.atomicStrings('Optional allow-list of object names; empty means all.'),
    nonResourceURLs: s.atomicStrings('Partial URLs a user may access; `*` allowed only as the final segment.'),
  },
  { required: ['verbs'] },
);

const rulesSchema = goWire.always({ type: 'array', description: 'The policy rules of this role.', items: policyRuleSchema, 'x-kubernetes-list-type': 'atomic' } as const);

const subjectSchema = s.object(
  'A user, group or service account a binding applies to.',
  {
    kind: s.string('User, Group or ServiceAccount.', { default: '' }),
    apiGroup: s.string('API group of the subject: "" for ServiceAccount, rbac.authorization.k8s.io for User and Group.'),
    name: s.string('Name of the subject.', { default: '' }),
    namespace: s.string('Namespace of a ServiceAccount subject.'),
  },
  { required: ['kind', 'name'], 'x-kubernetes-map-type': 'atomic' },
);

const roleRefSchema = s.object(
  'The role a binding grants; cannot be changed.',
  {
    apiGroup: s.string('API group of the referenced role.', { default: '' }),
    kind: s.string('Role or ClusterRole.', { default: '' }),
    name: s.string('Name of the referenced role.', { default: '' }),
  },
  { required: ['apiGroup', 'kind', 'name'], 'x-kubernetes-map-type': 'atomic' },
);

const bindingProperties = {
  subjects: { type: 'array', description: 'Who the role is granted to.', items: subjectSchema, 'x-kubernetes-list-type': 'atomic' },
  // A non-pointer struct of the Go type: always present (kube's OpenAPI `default: {}`).
  roleRef: { ...roleRefSchema, default: {} },
} as const;

function validatePolicyRule(rule: unknown, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (arrField(rule, 'verbs').length === 0) errs.push(fieldErr.required(fieldPath.child(path, 'verbs'), 'verbs must contain at least one value'));
  const urls = arrField(rule, 'nonResourceURLs');
  if (urls.length > 0) {
    const urlsPath = fieldPath.child(path, 'nonResourceURLs');
    // The []string value prints with %#v.
    const bad = goLiteral(goStringSlice(urls.map(String)));
    if (namespaced) errs.push(fieldErr.invalid(urlsPath, bad, 'namespaced rules cannot apply to non-resource URLs'));
    if (arrField(rule, 'apiGroups').length > 0 || arrField(rule, 'resources').length > 0 || arrField(rule, 'resourceNames').length > 0) {
      errs.push(fieldErr.invalid(urlsPath, bad, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (arrField(rule, 'apiGroups').length === 0) {
    errs.push(fieldErr.required(fieldPath.child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  }
  if (arrField(rule, 'resources').length === 0) {
    errs.push(fieldErr.required(fieldPath.child(path, 'resources'), 'resource rules must supply at least one resource'));
  }
  return errs;
}

function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  return arrField(obj, 'rules').flatMap((rule, i) => validatePolicyRule(rule, namespaced, fieldPath.index('rules', i)));
}

/** meta/v1 ValidateLabelSelector, for aggregation rule selectors. */
export function validateLabelSelector(selector: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arrField(selector, 'matchExpressions').forEach((req, i) => {
    const p = fieldPath.index(fieldPath.child(path, 'matchExpressions'), i);
    const op = strField(req, 'operator');
    const values = arrField(req, 'values');
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(fieldErr.required(fieldPath.child(p, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldErr.forbidden(fieldPath.child(p, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errs.push(fieldErr.invalid(fieldPath.child(p, 'operator'), op, 'not a valid selector operator'));
    }
    const key = strField(req, 'key');
    for (const msg of isQualifiedName(key)) errs.push(fieldErr.invalid(fieldPath.child(p, 'key'), key, msg));
  });
  errs.push(...validateLabels(objField(selector, 'matchLabels') as Record<string, string> | undefined, fieldPath.child(path, 'matchLabels')));
  return errs;
}

function validateClusterRole(obj: KubeObject): FieldError[] {
  const errs = validateRules(obj, false);
  const rule = objField(obj, 'aggregationRule');
  if (rule) {
    const selectorsPath = 'aggregationRule.clusterRoleSelectors';
    const selectors = arrField(rule, 'clusterRoleSelectors');
    if (selectors.length === 0) errs.push(fieldErr.required(selectorsPath, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((sel, i) => {
      const path = fieldPath.index(selectorsPath, i);
      errs.push(...validateLabelSelector(sel, path));
      // kube then converts the selector; when that fails it adds one more error whose value is the
      // nil selector (printed "null").
      try {
        labelSelectorFromObject(sel as LabelSelectorObject);
      } catch {
        errs.push(fieldErr.invalid(path, goLiteral('"null"'), 'invalid label selector.'));
      }
    });
  }
  return errs;
}

function validateSubject(subject: unknown, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = strField(subject, 'name');
  const apiGroup = strField(subject, 'apiGroup');
  const kind = strField(subject, 'kind');
  if (name === '') errs.push(fieldErr.required(fieldPath.child(path, 'name')));
  switch (kind) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of isDns1123Subdomain(name)) errs.push(fieldErr.invalid(fieldPath.child(path, 'name'), name, msg));
      if (apiGroup !== '') errs.push(fieldErr.notSupported(fieldPath.child(path, 'apiGroup'), apiGroup, ['']));
      if (!namespaced && strField(subject, 'namespace') === '') errs.push(fieldErr.required(fieldPath.child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP) errs.push(fieldErr.notSupported(fieldPath.child(path, 'apiGroup'), apiGroup, [RBAC_GROUP]));
      break;
    default:
      errs.push(fieldErr.notSupported(fieldPath.child(path, 'kind'), kind, ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

function validateBinding(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const apiGroup = strField(obj, 'roleRef', 'apiGroup');
  if (apiGroup !== RBAC_GROUP) errs.push(fieldErr.notSupported('roleRef.apiGroup', apiGroup, [RBAC_GROUP]));
  const kind = strField(obj, 'roleRef', 'kind');
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errs.push(fieldErr.notSupported('roleRef.kind', kind, kinds));
  const name = strField(obj, 'roleRef', 'name');
  if (name === '') errs.push(fieldErr.required('roleRef.name'));
  else for (const msg of isPathSegmentName(name)) errs.push(fieldErr.invalid('roleRef.name', name, msg));
  arrField(obj, 'subjects').forEach((sub, i) => errs.push(...validateSubject(sub, namespaced, fieldPath.index('subjects', i))));
  return errs;
}

/**
 * kube's binding strategies run ValidateRoleBinding, then ValidateRoleBindingUpdate, which runs
 * ValidateRoleBinding again (ObjectMeta and subjects) before the update checks.
 */
function validateBindingUpdate(obj: KubeObject, old: KubeObject, namespaced: boolean): FieldError[] {
  const binding = [...validateObjectMeta(obj.metadata, namespaced ? RBAC_NAMESPACED_META : RBAC_CLUSTER_META), ...validateBinding(obj, namespaced)];
  const errs = [...binding, ...binding, ...validateObjectMetaUpdate(obj.metadata, old.metadata)];
  // Changing the role would silently change what every subject may do: delete and recreate instead.
  if (!semanticEqual(obj.roleRef, old.roleRef)) errs.push(fieldErr.invalid('roleRef', roleRefGoValue(obj), 'cannot change roleRef'));
  return errs;
}

/**
 * kube validates the internal rbac.RoleRef struct and field.Invalid prints it with Go's %#v, so the bad value
 * reads `rbac.RoleRef{APIGroup:"…", Kind:"…", Name:"…"}` rather than JSON.
 */
function roleRefGoValue(obj: KubeObject): GoLiteral {
  const q = (k: string) => JSON.stringify(strField(obj, 'roleRef', k));
  return goLiteral(`rbac.RoleRef{APIGroup:${q('apiGroup')}, Kind:${q('kind')}, Name:${q('name')}}`);
}

/** rbac/v1 defaulting: roleRef.apiGroup and User/Group subjects' apiGroup default to the RBAC group. */
export function defaultBinding(obj: KubeObject): void {
  const roleRef = objField(obj, 'roleRef');
  if (roleRef && !roleRef.apiGroup) roleRef.apiGroup = RBAC_GROUP;
  for (const sub of arrField(obj, 'subjects')) {
    if (sub === null || typeof sub !== 'object') continue;
    const subject = sub as Record<string, unknown>;
    if (!subject.apiGroup && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = RBAC_GROUP;
  }
}

/** Users, groups and service accounts of a binding, as kube's printer lists them. */
export function subjectStrings(obj: KubeObject): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const sub of arrField(obj, 'subjects')) {
    const name = strField(sub, 'name');
    const kind = strField(sub, 'kind');
    if (kind === 'User') out.users.push(name);
    else if (kind === 'Group') out.groups.push(name);
    else if (kind === 'ServiceAccount') {
      const ns = strField(sub, 'namespace');
      out.serviceAccounts.push(ns ? `${ns}/${name}` : name);
    }
  }
  return out;
}

// kube's printers take these descriptions from the two kinds' API docs, so they differ only in the
// RoleRef sentence and in the kind named in the subject columns.
const ROLE_REF_DESCRIPTION = {
  RoleBinding:
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ClusterRoleBinding: 'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
} as const;

function bindingColumns(kind: 'RoleBinding' | 'ClusterRoleBinding'): readonly TableColumn[] {
  const noun = kind === 'RoleBinding' ? 'roleBinding' : 'clusterRoleBinding';
  return [
    nameColumn(),
    stringColumn('Role', ROLE_REF_DESCRIPTION[kind], (obj) => `${strField(obj, 'roleRef', 'kind')}/${strField(obj, 'roleRef', 'name')}`),
    ageColumn,
    stringColumn('Users', `Users in the ${noun}`, (obj) => subjectStrings(obj).users.join(', '), 1),
    stringColumn('Groups', `Groups in the ${noun}`, (obj) => subjectStrings(obj).groups.join(', '), 1),
    stringColumn('ServiceAccounts', `ServiceAccounts in the ${noun}`, (obj) => subjectStrings(obj).serviceAccounts.join(', '), 1),
  ];
}

const common = {
  group: RBAC_GROUP,
  version: 'v1',
  shortNames: [],
  categories: [],
  hasStatus: false,
  nameValidation: 'path-segment',
  fieldSelectors: {},
} as const;

export const roleType: ResourceType = {
  ...common,
  resource: 'roles',
  kind: 'Role',
  listKind: 'RoleList',
  singular: 'role',
  namespaced: true,
  schema: kindSchema('A namespaced set of policy rules, granted by a RoleBinding.', { rules: rulesSchema }),
  tableColumns: [nameColumn(), createdAtColumn],
  strategy: {
    validate: (obj) => validateRules(obj, true),
    // kube's role strategy runs ValidateRole, then ValidateRoleUpdate, which runs ValidateRole again
    // (ObjectMeta and rules): every error of the role itself is reported twice on update.
    validateUpdate: (obj, old) => {
      const role = [...validateObjectMeta(obj.metadata, RBAC_NAMESPACED_META), ...validateRules(obj, true)];
      return [...role, ...role, ...validateObjectMetaUpdate(obj.metadata, old.metadata)];
    },
  },
  storagePrefix: `/registry/${RBAC_GROUP}/roles/`,
};

export const clusterRoleType: ResourceType = {
  ...common,
  resource: 'clusterroles',
  kind: 'ClusterRole',
  listKind: 'ClusterRoleList',
  singular: 'clusterrole',
  namespaced: false,
  schema: kindSchema('A cluster-level set of policy rules, granted by a RoleBinding or ClusterRoleBinding.', {
    rules: rulesSchema,
    aggregationRule: s.object('How to build the rules of this role from other ClusterRoles; a controller overwrites rules.', {
      clusterRoleSelectors: { type: 'array', description: 'Selectors of the ClusterRoles whose rules are aggregated.', items: labelSelectorSchema, 'x-kubernetes-list-type': 'atomic' },
    }),
  }),
  tableColumns: [nameColumn(), createdAtColumn],
  strategy: {
    validate: validateClusterRole,
    // As for roles: ValidateClusterRole, then ValidateClusterRoleUpdate (ValidateClusterRole again).
    validateUpdate: (obj, old) => {
      const role = [...validateObjectMeta(obj.metadata, RBAC_CLUSTER_META), ...validateClusterRole(obj)];
      return [...role, ...role, ...validateObjectMetaUpdate(obj.metadata, old.metadata)];
    },
  },
  storagePrefix: `/registry/${RBAC_GROUP}/clusterroles/`,
};

export const roleBindingType: ResourceType = {
  ...common,
  resource: 'rolebindings',
  kind: 'RoleBinding',
  listKind: 'RoleBindingList',
  singular: 'rolebinding',
  namespaced: true,
  schema: kindSchema('Grants the permissions of a Role or ClusterRole within one namespace.', bindingProperties, ['roleRef']),
  tableColumns: bindingColumns('RoleBinding'),
  strategy: {
    defaults: defaultBinding,
    validate: (obj) => validateBinding(obj, true),
    validateUpdate: (obj, old) => validateBindingUpdate(obj, old, true),
  },
  storagePrefix: `/registry/${RBAC_GROUP}/rolebindings/`,
};

export const clusterRoleBindingType: ResourceType = {
  ...common,
  resource: 'clusterrolebindings',
  kind: 'ClusterRoleBinding',
  listKind: 'ClusterRoleBindingList',
  singular: 'clusterrolebinding',
  namespaced: false,
  schema: kindSchema('Grants the permissions of a ClusterRole cluster-wide.', bindingProperties, ['roleRef']),
  tableColumns: bindingColumns('ClusterRoleBinding'),
  strategy: {
    defaults: defaultBinding,
    validate: (obj) => validateBinding(obj, false),
    validateUpdate: (obj, old) => validateBindingUpdate(obj, old, false),
  },
  storagePrefix: `/registry/${RBAC_GROUP}/clusterrolebindings/`,
};
