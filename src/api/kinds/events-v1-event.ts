/**
 * events.k8s.io/v1 Event: the same stored objects as core/v1 events under `/registry/events/`,
 * served with renamed fields (regarding, note, reportingController, deprecated*) and strict validation.
 */
import { goWire } from '../../codec/go-zero.ts';
import type { KubeObject, ResourceType, StorageConversion, TableColumn } from '../types.ts';
import { objectReferenceSchema, s, strField } from './common-schemas.ts';
import { eventSeriesSchema, eventTableColumns } from './event.ts';
import { validateEventCreate, validateEventUpdate } from './event-validation.ts';
import { kindSchema } from './object-meta-schema.ts';

/** events.k8s.io/v1 field name -> core/v1 field name; every other field has the same name in both. */
const RENAMES: Readonly<Record<string, string>> = {
  regarding: 'involvedObject',
  note: 'message',
  deprecatedSource: 'source',
  deprecatedFirstTimestamp: 'firstTimestamp',
  deprecatedLastTimestamp: 'lastTimestamp',
  deprecatedCount: 'count',
  reportingController: 'reportingComponent',
};
const REVERSE: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(RENAMES).map(([a, b]) => [b, a]));

function renameKeys(obj: KubeObject, names: Readonly<Record<string, string>>, apiVersion: string): KubeObject {
  const out: KubeObject = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    out[names[k] ?? k] = v;
  }
  // kind first, then apiVersion: the order kube serializes TypeMeta in.
  return { kind: 'Event', apiVersion, ...out };
}

/** Converts between the served events.k8s.io/v1 shape and the stored core/v1 shape. */
export const eventsStorageConversion: StorageConversion = {
  toStorage: (obj) => renameKeys(obj, RENAMES, 'v1'),
  fromStorage: (obj) => renameKeys(obj, REVERSE, 'events.k8s.io/v1'),
};

/** The core/v1 shape of an event given in either shape (hooks and cells may see either). */
export function asCoreEvent(obj: KubeObject): KubeObject {
  if (obj.apiVersion === 'v1') return obj;
  if (obj.apiVersion === 'events.k8s.io/v1' || Object.keys(RENAMES).some((k) => k in obj)) return eventsStorageConversion.toStorage(obj);
  return obj;
}

const schema = kindSchema(
  'A report of an event somewhere in the cluster; the successor of core/v1 Event.',
  {
    // Go's field tags decide the zero values written (go-zero.ts): the struct times are always
    // written (null when zero), the omitempty strings and count left out when empty.
    eventTime: goWire.always(s.microTime('When this event was first observed.')),
    series: { ...eventSeriesSchema, required: ['count', 'lastObservedTime'] },
    reportingController: goWire.omitZero(s.string('Name of the controller that emitted this event, e.g. `kubernetes.io/kubelet`.')),
    reportingInstance: goWire.omitZero(s.string('ID of the controller instance, e.g. `kubelet-xyzf`.')),
    action: goWire.omitZero(s.string('What action was taken or failed regarding the regarding object.')),
    reason: goWire.omitZero(s.string('Why the action was taken; human-readable.')),
    // Non-pointer structs of the Go type: always present (kube's OpenAPI `default: {}`).
    regarding: { ...objectReferenceSchema, default: {} },
    related: objectReferenceSchema,
    note: goWire.omitZero(s.string('Human-readable description of the status of this operation.')),
    type: goWire.omitZero(s.string('Type of this event (Normal, Warning); new types could be added.')),
    deprecatedSource: s.object(
      'Deprecated: the component and host that reported the event.',
      {
        component: s.string('Component from which the event is generated.'),
        host: s.string('Node name on which the event is generated.'),
      },
      { default: {} },
    ),
    deprecatedFirstTimestamp: goWire.always(s.dateTime('Deprecated field assuring backward compatibility with core/v1 Event.')),
    deprecatedLastTimestamp: goWire.always(s.dateTime('Deprecated field assuring backward compatibility with core/v1 Event.')),
    deprecatedCount: goWire.omitZero(s.int32('Deprecated field assuring backward compatibility with core/v1 Event.')),
  },
  ['eventTime'],
);

const tableColumns: readonly TableColumn[] = eventTableColumns.map((c) => ({ ...c, cell: (obj: KubeObject, now: Date) => c.cell(asCoreEvent(obj), now) }));

const core = (get: (ev: KubeObject) => string) => (obj: KubeObject) => get(asCoreEvent(obj));

export const eventsV1EventType: ResourceType = {
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  listKind: 'EventList',
  singular: 'event',
  namespaced: true,
  shortNames: ['ev'],
  categories: [],
  schema,
  hasStatus: false,
  nameValidation: 'dns1123-subdomain',
  tableColumns,
  fieldSelectors: {
    'regarding.kind': core((ev) => strField(ev, 'involvedObject', 'kind')),
    'regarding.namespace': core((ev) => strField(ev, 'involvedObject', 'namespace')),
    'regarding.name': core((ev) => strField(ev, 'involvedObject', 'name')),
    'regarding.uid': core((ev) => strField(ev, 'involvedObject', 'uid')),
    'regarding.apiVersion': core((ev) => strField(ev, 'involvedObject', 'apiVersion')),
    'regarding.resourceVersion': core((ev) => strField(ev, 'involvedObject', 'resourceVersion')),
    'regarding.fieldPath': core((ev) => strField(ev, 'involvedObject', 'fieldPath')),
    reason: core((ev) => strField(ev, 'reason')),
    reportingController: core((ev) => strField(ev, 'reportingComponent')),
    source: core((ev) => strField(ev, 'source', 'component') || strField(ev, 'reportingComponent')),
    type: core((ev) => strField(ev, 'type')),
  },
  strategy: {
    validate: (obj) => validateEventCreate(asCoreEvent(obj), 'events'),
    validateUpdate: (obj, old) => validateEventUpdate(asCoreEvent(obj), asCoreEvent(old), 'events'),
  },
  storagePrefix: '/registry/events/',
  // Served by kube's core event registry: its errors name the core Event.
  internalGroup: '',
  storageConversion: eventsStorageConversion,
};
