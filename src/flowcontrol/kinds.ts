/**
 * flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration: schemas (with the
 * Go wire form of their lists), kube's v1 defaults, kube's validation and messages
 * (pkg/apis/flowcontrol/validation), the status subresource and the printed columns.
 */
import { goWire } from '../codec/go-zero.ts';
import type { FieldError } from '../api/field-errors.ts';
import { fieldErr, fieldPath, goLiteral, goStringSlice } from '../api/field-errors.ts';
import type { KubeObject, ResourceType } from '../api/types.ts';
import { isDns1123Label, isDns1123Subdomain } from '../api/validation/names.ts';
import { semanticEqual } from '../api/validation/equality.ts';
import { validateObjectMetaUpdate } from '../api/validation/metadata.ts';
import { arrField, objField, s, strField } from '../api/kinds/common-schemas.ts';
import { kindSchema } from '../api/kinds/object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from '../api/kinds/table-columns.ts';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from './bootstrap.ts';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.k8s.io';

const set = (description: string) => goWire.always({ ...s.atomicStrings(description), 'x-kubernetes-list-type': 'set' });
const int32Pointer = (description: string) => s.int32(description);

const conditionSchema = s.object(
  'The current state of the object in one aspect.',
  {
    type: s.string('The type of the condition.'),
    status: s.string('True, False or Unknown.'),
    lastTransitionTime: s.dateTime('Last time the condition changed status.'),
    reason: s.string('A unique, one-word, CamelCase reason for the last transition.'),
    message: s.string('A human-readable message about the last transition.'),
  },
);

const statusSchema = s.object('The current status of the object.', {
  conditions: {
    type: 'array',
    description: 'The current state of the object.',
    items: conditionSchema,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    'x-kubernetes-patch-merge-key': 'type',
    'x-kubernetes-patch-strategy': 'merge',
  },
});

const subjectSchema = s.object(
  'A user, group or service account a flow schema matches.',
  {
    kind: s.string('User, Group or ServiceAccount.', { default: '' }),
    user: s.object('The user, when kind is User.', { name: s.string('The user name; `*` matches every user.', { default: '' }) }, { required: ['name'] }),
    group: s.object('The group, when kind is Group.', { name: s.string('The group name; `*` matches every group.', { default: '' }) }, { required: ['name'] }),
    serviceAccount: s.object(
      'The service account, when kind is ServiceAccount.',
      {
        namespace: s.string('Namespace of the service account.', { default: '' }),
        name: s.string('Name of the service account; `*` matches every one in the namespace.', { default: '' }),
      },
      { required: ['namespace', 'name'] },
    ),
  },
  { required: ['kind'] },
);

const flowSchemaSchema = kindSchema('A set of flows with a common priority level: the request classifier of API Priority and Fairness.', {
  spec: s.object(
    'The specification of the flow schema.',
    {
      priorityLevelConfiguration: s.object(
        'The priority level the matched requests go to.',
        { name: s.string('`name` is the name of the priority level configuration being referenced Required.', { default: '' }) },
        { default: {}, required: ['name'] },
      ),
      matchingPrecedence: s.int32('Among the matching schemas, the one with the lowest value wins; 1..10000, default 1000.'),
      distinguisherMethod: s.object('How the flow of a request is told apart: ByUser or ByNamespace; absent is one flow.', { type: s.string('ByUser or ByNamespace.', { default: '' }) }, { required: ['type'] }),
      rules: {
        type: 'array',
        description: 'The rules a request must match (any one); empty matches nothing.',
        'x-kubernetes-list-type': 'atomic',
        items: s.object('Subjects and the resource or non-resource rules they are matched with.', {
          subjects: goWire.always({ type: 'array', description: 'Who the rule applies to.', items: subjectSchema, 'x-kubernetes-list-type': 'atomic' }),
          resourceRules: {
            type: 'array',
            description: 'Resource requests the rule matches.',
            'x-kubernetes-list-type': 'atomic',
            items: s.object(
              'Verbs, API groups, resources and namespaces.',
              {
                verbs: set('Verbs; `*` is all.'),
                apiGroups: set('API groups; `*` is all.'),
                resources: set('Resources (`resource/subresource` for subresources); `*` is all.'),
                clusterScope: s.boolean('Whether cluster-scoped requests match.'),
                namespaces: set('Namespaces; `*` is all.'),
              },
              { required: ['verbs', 'apiGroups', 'resources'] },
            ),
          },
          nonResourceRules: {
            type: 'array',
            description: 'Non-resource requests the rule matches.',
            'x-kubernetes-list-type': 'atomic',
            items: s.object(
              'Verbs and non-resource URLs.',
              {
                verbs: set('Verbs; `*` is all.'),
                nonResourceURLs: set('URL paths; `*` is all, `/prefix/*` a prefix.'),
              },
              { required: ['verbs', 'nonResourceURLs'] },
            ),
          },
        }, { required: ['subjects'] }),
      },
    },
    { default: {}, required: ['priorityLevelConfiguration'] },
  ),
  status: { ...statusSchema, default: {} },
});

const priorityLevelSchema = kindSchema('A priority level: its share of the server\'s concurrency and how excess requests wait.', {
  spec: s.object(
    'The specification of the priority level.',
    {
      type: s.string('Exempt or Limited.', { default: '' }),
      limited: s.object('The limits of a Limited level.', {
        nominalConcurrencyShares: int32Pointer('Share of the server\'s concurrency limit; default 30.'),
        limitResponse: s.object(
          'What happens to a request that cannot run at once.',
          {
            type: s.string('Queue or Reject.', { default: '' }),
            queuing: s.object('Queues of a Queue response.', {
              queues: s.int32('Number of queues; default 64.'),
              handSize: s.int32('Queues dealt to each flow (shuffle sharding); default 8.'),
              queueLengthLimit: s.int32('Requests allowed to wait in one queue; default 50.'),
            }),
          },
          { default: {}, required: ['type'] },
        ),
        lendablePercent: int32Pointer('Percent of the nominal limit other levels may borrow.'),
        borrowingLimitPercent: int32Pointer('Percent of the nominal limit this level may borrow from others; absent is unlimited.'),
      }),
      exempt: s.object('Settings of an Exempt level.', {
        nominalConcurrencyShares: int32Pointer('Share of the server\'s concurrency limit counted for this level; default 0.'),
        lendablePercent: int32Pointer('Percent of the nominal limit other levels may borrow.'),
      }),
    },
    { default: {}, required: ['type'] },
  ),
  status: { ...statusSchema, default: {} },
});

/** kube's v1 SetDefaults_FlowSchemaSpec. */
export function defaultFlowSchema(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as Record<string, unknown>;
  if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
}

/** kube's v1 defaults of a priority level (nominal shares 30 when Limited, 0 when Exempt; queuing 64/8/50). */
export function defaultPriorityLevel(obj: KubeObject): void {
  const spec = objField(obj, 'spec');
  if (!spec) return;
  const limited = objField(spec, 'limited');
  if (limited) {
    if (limited.nominalConcurrencyShares === undefined || limited.nominalConcurrencyShares === null) limited.nominalConcurrencyShares = 30;
    if (limited.lendablePercent === undefined || limited.lendablePercent === null) limited.lendablePercent = 0;
    const queuing = objField(objField(limited, 'limitResponse'), 'queuing');
    if (queuing) {
      if (!queuing.queues) queuing.queues = 64;
      if (!queuing.handSize) queuing.handSize = 8;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
    }
  }
  const exempt = objField(spec, 'exempt');
  if (exempt) {
    if (exempt.nominalConcurrencyShares === undefined || exempt.nominalConcurrencyShares === null) exempt.nominalConcurrencyShares = 0;
    if (exempt.lendablePercent === undefined || exempt.lendablePercent === null) exempt.lendablePercent = 0;
  }
}

const SUPPORTED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'proxy', 'update', 'watch'];
const NS_ERR_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";
/** shufflesharding.MaxHashBits: the hash bits one flow's hand may consume. */
export const MAX_HASH_BITS = 60;
const MAX_QUEUES = 10_000_000;

/** shufflesharding.RequiredEntropyBits. */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

function validateVerbs(verbs: string[], path: string): FieldError[] {
  if (verbs.length === 0) return [fieldErr.required(path, 'verbs must contain at least one value')];
  if (verbs.includes('*')) return verbs.length > 1 ? [fieldErr.invalid(path, goLiteral(goStringSlice(verbs)), "if '*' is present, must not specify other verbs")] : [];
  if (!verbs.every((v) => SUPPORTED_VERBS.includes(v))) return [fieldErr.notSupported(path, goLiteral(goStringSlice(verbs)), SUPPORTED_VERBS)];
  return [];
}

/** kube's ValidateNonResourceURLPath: the first problem, or undefined. */
function nonResourceUrlError(url: string, path: string): FieldError | undefined {
  if (url === '') return fieldErr.invalid(path, url, 'must not be empty');
  if (url === '/') return undefined;
  if (!url.startsWith('/')) return fieldErr.invalid(path, url, 'must start with slash');
  if (url.includes(' ')) return fieldErr.invalid(path, url, 'must not contain white-space');
  if (url.includes('//')) return fieldErr.invalid(path, url, 'must not contain double slash');
  const stars = url.split('*').length - 1;
  if (stars > 1 || (stars === 1 && url.slice(-2) !== '/*')) return fieldErr.invalid(path, url, 'wildcard can only do suffix matching');
  return undefined;
}

function validateSubject(subject: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const kind = strField(subject, 'kind');
  const present = (k: string) => subject[k] !== undefined && subject[k] !== null;
  const forbid = (k: string, what: string) => {
    if (present(k)) errs.push(fieldErr.forbidden(fieldPath.child(path, k), `${k} is forbidden when subject kind is not '${what}'`));
  };
  switch (kind) {
    case 'ServiceAccount': {
      const sa = objField(subject, 'serviceAccount');
      const p = fieldPath.child(path, 'serviceAccount');
      if (!sa) errs.push(fieldErr.required(p, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = strField(sa, 'name');
        if (name === '') errs.push(fieldErr.required(fieldPath.child(p, 'name')));
        else if (name !== '*') for (const m of isDns1123Subdomain(name)) errs.push(fieldErr.invalid(fieldPath.child(p, 'name'), name, m));
        const ns = strField(sa, 'namespace');
        if (ns === '') errs.push(fieldErr.required(fieldPath.child(p, 'namespace'), 'must specify namespace for service account'));
        else for (const m of isDns1123Label(ns)) errs.push(fieldErr.invalid(fieldPath.child(p, 'namespace'), ns, m));
      }
      forbid('user', 'User');
      forbid('group', 'Group');
      break;
    }
    case 'User':
    case 'Group': {
      const k = kind === 'User' ? 'user' : 'group';
      const v = objField(subject, k);
      if (!v) errs.push(fieldErr.required(fieldPath.child(path, k), `${k} is required when subject kind is '${kind}'`));
      else if (strField(v, 'name') === '') errs.push(fieldErr.required(fieldPath.child(fieldPath.child(path, k), 'name')));
      forbid('serviceAccount', 'ServiceAccount');
      if (kind === 'User') forbid('group', 'Group');
      else forbid('user', 'User');
      break;
    }
    default:
      errs.push(fieldErr.notSupported(fieldPath.child(path, 'kind'), kind, ['Group', 'ServiceAccount', 'User']));
  }
  return errs;
}

function validateResourceRule(rule: Record<string, unknown>, path: string): FieldError[] {
  const errs = validateVerbs(strings(rule.verbs), fieldPath.child(path, 'verbs'));
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errs.push(fieldErr.required(fieldPath.child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  else if (groups.length > 1 && groups.includes('*')) errs.push(fieldErr.invalid(fieldPath.child(path, 'apiGroups'), goLiteral(goStringSlice(groups)), "if '*' is present, must not specify other api groups"));
  const resources = strings(rule.resources);
  if (resources.length === 0) errs.push(fieldErr.required(fieldPath.child(path, 'resources'), 'resource rules must supply at least one resource'));
  else if (resources.length > 1 && resources.includes('*')) errs.push(fieldErr.invalid(fieldPath.child(path, 'resources'), goLiteral(goStringSlice(resources)), "if '*' is present, must not specify other resources"));
  const namespaces = strings(rule.namespaces);
  const nsPath = fieldPath.child(path, 'namespaces');
  if (namespaces.length === 0 && rule.clusterScope !== true) errs.push(fieldErr.required(nsPath, 'resource rules that are not cluster scoped must supply at least one namespace'));
  else if (namespaces.includes('*')) {
    if (namespaces.length > 1) errs.push(fieldErr.invalid(nsPath, goLiteral(goStringSlice(namespaces)), "if '*' is present, must not specify other namespaces"));
  } else {
    namespaces.forEach((ns, i) => {
      for (const m of isDns1123Label(ns)) errs.push(fieldErr.invalid(fieldPath.index(nsPath, i), ns, NS_ERR_INTRO + m));
    });
  }
  return errs;
}

function validateNonResourceRule(rule: Record<string, unknown>, path: string): FieldError[] {
  const errs = validateVerbs(strings(rule.verbs), fieldPath.child(path, 'verbs'));
  const urls = strings(rule.nonResourceURLs);
  const urlsPath = fieldPath.child(path, 'nonResourceURLs');
  if (urls.length === 0) errs.push(fieldErr.required(urlsPath, 'nonResourceURLs must contain at least one value'));
  else if (urls.includes('*')) {
    if (urls.length > 1) errs.push(fieldErr.invalid(urlsPath, goLiteral(goStringSlice(urls)), "if '*' is present, must not specify other non-resource URLs"));
  } else {
    urls.forEach((u, i) => {
      const e = nonResourceUrlError(u, fieldPath.index(urlsPath, i));
      if (e) errs.push(e);
    });
  }
  return errs;
}

function validateConditions(status: Record<string, unknown> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arrField(status, 'conditions').forEach((c, i) => {
    const type = strField(c, 'type');
    const p = fieldPath.index('status.conditions', i);
    if (seen.has(type)) errs.push(fieldErr.duplicate(fieldPath.child(p, 'type'), type));
    seen.add(type);
    if (type === '') errs.push(fieldErr.required(fieldPath.child(p, 'type'), 'must not be empty'));
  });
  return errs;
}

/** A spec as a bad value: kube prints the Go struct (with pointer addresses); we print its JSON. */
const specLiteral = (spec: unknown) => goLiteral(JSON.stringify(spec ?? {}));

export function validateFlowSchema(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata?.name ?? '';
  const spec = objField(obj, 'spec') ?? {};
  const precedence = typeof spec.matchingPrecedence === 'number' ? spec.matchingPrecedence : 0;
  if (precedence <= 0) errs.push(fieldErr.invalid('spec.matchingPrecedence', precedence, 'must be a positive value'));
  if (precedence > 10000) errs.push(fieldErr.invalid('spec.matchingPrecedence', precedence, 'must not be greater than 10000'));
  if (precedence === 1 && name !== 'exempt') errs.push(fieldErr.invalid('spec.matchingPrecedence', precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  const method = objField(spec, 'distinguisherMethod');
  if (method) {
    const type = strField(method, 'type');
    if (type !== 'ByNamespace' && type !== 'ByUser') {
      errs.push(fieldErr.notSupported('spec.distinguisherMethod.type', goLiteral(`flowcontrol.FlowDistinguisherMethod{Type:${JSON.stringify(type)}}`), ['ByNamespace', 'ByUser']));
    }
  }
  const plName = strField(objField(spec, 'priorityLevelConfiguration'), 'name');
  if (plName === '') errs.push(fieldErr.required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  else for (const m of isDns1123Subdomain(plName)) errs.push(fieldErr.invalid('spec.priorityLevelConfiguration.name', plName, m));
  arrField(spec, 'rules').forEach((r, i) => {
    const rule = (r ?? {}) as Record<string, unknown>;
    const p = fieldPath.index('spec.rules', i);
    const subjects = arrField(rule, 'subjects');
    if (subjects.length === 0) errs.push(fieldErr.required(fieldPath.child(p, 'subjects'), 'subjects must contain at least one value'));
    subjects.forEach((sub, j) => errs.push(...validateSubject((sub ?? {}) as Record<string, unknown>, fieldPath.index(fieldPath.child(p, 'subjects'), j))));
    const resourceRules = arrField(rule, 'resourceRules');
    const nonResourceRules = arrField(rule, 'nonResourceRules');
    if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(fieldErr.required(p, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
    resourceRules.forEach((rr, j) => errs.push(...validateResourceRule((rr ?? {}) as Record<string, unknown>, fieldPath.index(fieldPath.child(p, 'resourceRules'), j))));
    nonResourceRules.forEach((nr, j) => errs.push(...validateNonResourceRule((nr ?? {}) as Record<string, unknown>, fieldPath.index(fieldPath.child(p, 'nonResourceRules'), j))));
  });
  const mandatory = MANDATORY_FLOW_SCHEMAS.find((m) => m.metadata?.name === name);
  if (mandatory && !semanticEqual(spec, mandatory.spec)) errs.push(fieldErr.invalid('spec', specLiteral(spec), `spec of '${name}' must equal the fixed value`));
  errs.push(...validateConditions(objField(obj, 'status')));
  return errs;
}

function validateLendable(v: unknown, path: string): FieldError[] {
  if (typeof v === 'number' && !(v >= 0 && v <= 100)) return [fieldErr.invalid(path, v, 'must be between 0 and 100, inclusive')];
  return [];
}

export function validatePriorityLevel(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata?.name ?? '';
  const spec = objField(obj, 'spec') ?? {};
  const type = strField(spec, 'type');
  if ((name === 'exempt') !== (type === 'Exempt')) errs.push(fieldErr.invalid('spec.type', type, "type must be 'Exempt' if and only if name is 'exempt'"));
  const limited = objField(spec, 'limited');
  const exempt = objField(spec, 'exempt');
  switch (type) {
    case 'Exempt':
      if (limited) errs.push(fieldErr.forbidden('spec.limited', 'must be nil if the type is not Limited'));
      if (exempt) {
        const ncs = exempt.nominalConcurrencyShares;
        if (typeof ncs === 'number' && ncs < 0) errs.push(fieldErr.invalid('spec.exempt.nominalConcurrencyShares', ncs, 'must be a non-negative integer'));
        errs.push(...validateLendable(exempt.lendablePercent, 'spec.exempt.lendablePercent'));
      }
      break;
    case 'Limited':
      if (exempt) errs.push(fieldErr.forbidden('spec.exempt', 'must be nil if the type is Limited'));
      if (!limited) errs.push(fieldErr.required('spec.limited', 'must not be empty when type is Limited'));
      else {
        const ncs = limited.nominalConcurrencyShares;
        if (typeof ncs === 'number' && ncs < 0) errs.push(fieldErr.invalid('spec.limited.nominalConcurrencyShares', ncs, 'must be a non-negative integer'));
        errs.push(...validateLimitResponse(objField(limited, 'limitResponse') ?? {}));
        errs.push(...validateLendable(limited.lendablePercent, 'spec.limited.lendablePercent'));
        const blp = limited.borrowingLimitPercent;
        if (typeof blp === 'number' && blp < 0) errs.push(fieldErr.invalid('spec.limited.borrowingLimitPercent', blp, 'if specified, must be a non-negative integer'));
      }
      break;
    default:
      errs.push(fieldErr.notSupported('spec.type', type, ['Exempt', 'Limited']));
  }
  // The catch-all level is fixed; the exempt level's settings may be tuned (only its type is fixed, above).
  const mandatory = MANDATORY_PRIORITY_LEVELS.find((m) => m.metadata?.name === name);
  if (mandatory && name !== 'exempt' && !semanticEqual(spec, mandatory.spec)) errs.push(fieldErr.invalid('spec', specLiteral(spec), `spec of '${name}' must equal the fixed value`));
  errs.push(...validateConditions(objField(obj, 'status')));
  return errs;
}

function validateLimitResponse(lr: Record<string, unknown>): FieldError[] {
  const base = 'spec.limited.limitResponse';
  const type = strField(lr, 'type');
  const queuing = objField(lr, 'queuing');
  switch (type) {
    case 'Reject':
      return queuing ? [fieldErr.forbidden(`${base}.queuing`, 'must be nil if limited.limitResponse.type is not Limited')] : [];
    case 'Queue': {
      if (!queuing) return [fieldErr.required(`${base}.queuing`, 'must not be empty if limited.limitResponse.type is Limited')];
      const errs: FieldError[] = [];
      const q = `${base}.queuing`;
      const num = (k: string) => (typeof queuing[k] === 'number' ? (queuing[k] as number) : 0);
      const [queues, handSize, limit] = [num('queues'), num('handSize'), num('queueLengthLimit')];
      if (limit <= 0) errs.push(fieldErr.invalid(`${q}.queueLengthLimit`, limit, 'must be positive'));
      if (queues <= 0) errs.push(fieldErr.invalid(`${q}.queues`, queues, 'must be positive'));
      else if (queues > MAX_QUEUES) errs.push(fieldErr.invalid(`${q}.queues`, queues, `must not be greater than ${MAX_QUEUES}`));
      if (handSize <= 0) errs.push(fieldErr.invalid(`${q}.handSize`, handSize, 'must be positive'));
      else if (handSize > queues) errs.push(fieldErr.invalid(`${q}.handSize`, handSize, `should not be greater than queues (${queues})`));
      else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
        errs.push(fieldErr.invalid(`${q}.handSize`, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
      }
      return errs;
    }
    default:
      return [fieldErr.notSupported(`${base}.type`, type, ['Queue', 'Reject'])];
  }
}

/** kube's status strategy for both kinds: a status write keeps the stored spec (and metadata changes other than status are dropped). */
const statusStrategy = {
  prepareForUpdate: (obj: KubeObject, old: KubeObject) => {
    const status = obj.status ?? {};
    delete obj.status;
    obj.spec = structuredClone(old.spec ?? {});
    obj.status = status;
  },
  validateUpdate: (obj: KubeObject) => validateConditions(objField(obj, 'status')),
};

const NONE = '<none>';

export const flowSchemaType: ResourceType = {
  group: FLOWCONTROL_GROUP,
  version: 'v1',
  resource: 'flowschemas',
  kind: 'FlowSchema',
  listKind: 'FlowSchemaList',
  singular: 'flowschema',
  namespaced: false,
  shortNames: [],
  categories: [],
  schema: flowSchemaSchema,
  hasStatus: true,
  tracksGeneration: true,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    stringColumn('PriorityLevel', '`name` is the name of the priority level configuration being referenced Required.', (obj) => strField(obj, 'spec', 'priorityLevelConfiguration', 'name')),
    stringColumn(
      'MatchingPrecedence',
      '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.',
      (obj) => objField(obj, 'spec')?.matchingPrecedence ?? 0,
    ),
    stringColumn(
      'DistinguisherMethod',
      '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.',
      (obj) => strField(obj, 'spec', 'distinguisherMethod', 'type') || NONE,
    ),
    ageColumn,
    stringColumn('MissingPL', 'references a broken or non-existent PriorityLevelConfiguration', (obj) => {
      const dangling = arrField(objField(obj, 'status'), 'conditions').find((c) => strField(c, 'type') === 'Dangling');
      return dangling ? strField(dangling, 'status') : '?';
    }),
  ],
  fieldSelectors: {},
  strategy: {
    defaults: defaultFlowSchema,
    // The status belongs to the configuration controller: a create starts without one, an update keeps the stored one.
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    prepareForUpdate: (obj, old) => {
      obj.status = old.status ?? {};
    },
    validate: validateFlowSchema,
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateFlowSchema(obj)],
    subresources: { status: statusStrategy },
  },
  storagePrefix: '/registry/flowschemas/',
};

const queuingOf = (obj: KubeObject) => objField(objField(objField(objField(obj, 'spec'), 'limited'), 'limitResponse'), 'queuing');

export const priorityLevelConfigurationType: ResourceType = {
  group: FLOWCONTROL_GROUP,
  version: 'v1',
  resource: 'prioritylevelconfigurations',
  kind: 'PriorityLevelConfiguration',
  listKind: 'PriorityLevelConfigurationList',
  singular: 'prioritylevelconfiguration',
  namespaced: false,
  shortNames: [],
  categories: [],
  schema: priorityLevelSchema,
  hasStatus: true,
  tracksGeneration: true,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    stringColumn(
      'Type',
      '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
      (obj) => strField(obj, 'spec', 'type'),
    ),
    stringColumn(
      'NominalConcurrencyShares',
      '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server\'s concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a "jail" for this priority level that is used to hold some request(s)',
      (obj) => objField(objField(obj, 'spec'), 'limited')?.nominalConcurrencyShares ?? NONE,
    ),
    stringColumn(
      'Queues',
      '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.',
      (obj) => queuingOf(obj)?.queues ?? NONE,
    ),
    stringColumn(
      'HandSize',
      "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.",
      (obj) => queuingOf(obj)?.handSize ?? NONE,
    ),
    stringColumn(
      'QueueLengthLimit',
      '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.',
      (obj) => queuingOf(obj)?.queueLengthLimit ?? NONE,
    ),
    ageColumn,
  ],
  fieldSelectors: {},
  strategy: {
    defaults: defaultPriorityLevel,
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    prepareForUpdate: (obj, old) => {
      obj.status = old.status ?? {};
    },
    validate: validatePriorityLevel,
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validatePriorityLevel(obj)],
    subresources: { status: statusStrategy },
  },
  storagePrefix: '/registry/prioritylevelconfigurations/',
};
