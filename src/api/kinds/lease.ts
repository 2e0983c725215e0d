/** coordination.k8s.io/v1 Lease: a holder identity with acquire and renew times, used for leader election and heartbeats. */
import type { FieldError } from '../field-errors.ts';
import { fieldErr } from '../field-errors.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { isQualifiedName } from '../validation/names.ts';
import { validateObjectMetaUpdate } from '../validation/metadata.ts';
import { objField, s, strField } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';

/** Strategies kube defines without a domain prefix. */
const KNOWN_LEASE_STRATEGIES = ['OldestEmulationVersion'];

const schema = kindSchema('A lease concept: who holds it, for how long, since when.', {
  // Go's non-pointer struct: always present, `{}` when empty (kube's OpenAPI `default: {}`).
  spec: s.object('The specification of the lease.', {
    holderIdentity: s.string('Identity of the current holder of the lease.'),
    leaseDurationSeconds: s.int32('Seconds candidates must wait before forcibly acquiring the lease, measured from the last renewTime.'),
    acquireTime: s.microTime('When the current lease was acquired.'),
    renewTime: s.microTime('When the current holder last updated the lease.'),
    leaseTransitions: s.int32('Number of transitions of the lease between holders.'),
    strategy: s.string('How the holder is chosen in coordinated leader election.'),
    preferredHolder: s.string('Signals to the lease holder that it should give up the lease in favor of this identity.'),
  }, { default: {} }),
});

function validateLease(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objField(obj, 'spec') ?? {};
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) errs.push(fieldErr.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = spec.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) {
    errs.push(fieldErr.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  const strategy = typeof spec.strategy === 'string' ? spec.strategy : undefined;
  if (strategy !== undefined) {
    // kube reports strategy errors one level deeper than the field itself.
    const path = 'spec.strategy.strategy';
    if (strategy.split('/').length === 1) {
      if (!KNOWN_LEASE_STRATEGIES.includes(strategy)) errs.push(fieldErr.notSupported(path, strategy, KNOWN_LEASE_STRATEGIES));
    } else {
      for (const msg of isQualifiedName(strategy)) errs.push(fieldErr.invalid(path, strategy, msg));
    }
  }
  if (strField(spec, 'preferredHolder') !== '' && !strategy) {
    errs.push(fieldErr.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

export const leaseType: ResourceType = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  listKind: 'LeaseList',
  singular: 'lease',
  namespaced: true,
  shortNames: [],
  categories: [],
  schema,
  hasStatus: false,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    stringColumn('Holder', 'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.', (obj) => strField(obj, 'spec', 'holderIdentity')),
    ageColumn,
  ],
  fieldSelectors: {},
  strategy: {
    // Leases are for leader election: kube insists every update names the version it read.
    allowUnconditionalUpdate: false,
    // strategy and preferredHolder belong to the alpha CoordinatedLeaderElection gate, off by
    // default in v1.32: dropped, unless an update finds them already stored.
    prepareForCreate: (obj) => dropGatedLeaseFields(obj, null),
    prepareForUpdate: (obj, old) => dropGatedLeaseFields(obj, old),
    validate: validateLease,
    validateUpdate: (obj, old) => [...validateObjectMetaUpdate(obj.metadata, old.metadata), ...validateLease(obj)],
  },
  storagePrefix: '/registry/coordination.k8s.io/leases/',
};

function dropGatedLeaseFields(obj: KubeObject, old: KubeObject | null): void {
  const spec = objField(obj, 'spec');
  if (!spec) return;
  const oldSpec = old ? objField(old, 'spec') : undefined;
  for (const field of ['strategy', 'preferredHolder']) {
    if (oldSpec?.[field] === undefined || oldSpec[field] === null) delete spec[field];
  }
}
