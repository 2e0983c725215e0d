/** core/v1 Event: a report of something that happened to an object; also the storage shape of events.k8s.io/v1. */
import { goWire } from '../../codec/go-zero.ts';
import type { KubeObject, ResourceType, TableColumn } from '../types.ts';
import { objField, objectReferenceSchema, s, strField } from './common-schemas.ts';
import { isZeroTime, validateEventCreate, validateEventUpdate } from './event-validation.ts';
import { timestampSince } from './human-duration.ts';
import { kindSchema } from './object-meta-schema.ts';
import { nameColumn, stringColumn } from './table-columns.ts';

export const eventSeriesSchema = s.object('Data about a series of events that keep occurring.', {
  count: s.int32('Number of occurrences in this series up to the last heartbeat time.'),
  lastObservedTime: s.microTime('Time of the last occurrence observed.'),
});

const eventSourceSchema = s.object('The component and host that reported an event.', {
  component: s.string('Component from which the event is generated.'),
  host: s.string('Node name on which the event is generated.'),
});

const schema = kindSchema(
  'A report of an event somewhere in the cluster.',
  {
    // Non-pointer structs and strings of the Go type: always present (kube's OpenAPI defaults).
    involvedObject: { ...objectReferenceSchema, default: {} },
    // Go's field tags decide the zero values written (go-zero.ts): omitempty strings and counts are
    // left out when empty, the struct times are always written (null when zero).
    reason: goWire.omitZero(s.string('Short, machine-understandable reason for the transition into the object’s current status.')),
    message: goWire.omitZero(s.string('Human-readable description of the status of this operation.')),
    source: { ...eventSourceSchema, default: {} },
    firstTimestamp: goWire.always(s.dateTime('When this event was first recorded.')),
    lastTimestamp: goWire.always(s.dateTime('When this event last occurred.')),
    count: goWire.omitZero(s.int32('Number of times this event has occurred.')),
    type: goWire.omitZero(s.string('Type of this event (Normal, Warning); new types could be added.')),
    eventTime: goWire.always(s.microTime('When this event was first observed.')),
    series: eventSeriesSchema,
    action: goWire.omitZero(s.string('What action was taken or failed regarding the involved object.')),
    related: objectReferenceSchema,
    reportingComponent: s.string('Name of the controller that emitted this event, e.g. `kubernetes.io/kubelet`.', { default: '' }),
    reportingInstance: s.string('ID of the controller instance, e.g. `kubelet-xyzf`.', { default: '' }),
  },
  ['metadata', 'involvedObject'],
);

function since(ts: unknown, now: Date): string {
  return isZeroTime(ts) ? '<unknown>' : timestampSince(ts, now);
}

function firstSeen(ev: KubeObject, now: Date): string {
  return isZeroTime(ev.firstTimestamp) ? since(ev.eventTime, now) : since(ev.firstTimestamp, now);
}

function lastSeen(ev: KubeObject, now: Date): string {
  const series = objField(ev, 'series');
  if (series) return since(series.lastObservedTime, now);
  return isZeroTime(ev.lastTimestamp) ? firstSeen(ev, now) : since(ev.lastTimestamp, now);
}

function eventCount(ev: KubeObject): number {
  const series = objField(ev, 'series');
  if (series) return typeof series.count === 'number' ? series.count : 0;
  // Singleton events of the new API carry no count.
  return typeof ev.count === 'number' && ev.count !== 0 ? ev.count : 1;
}

function eventTarget(ev: KubeObject): string {
  const kind = strField(ev, 'involvedObject', 'kind').toLowerCase();
  const name = strField(ev, 'involvedObject', 'name');
  return name ? `${kind}/${name}` : kind;
}

function eventSource(ev: KubeObject): string {
  const component = strField(ev, 'source', 'component') || strField(ev, 'reportingComponent');
  const instance = strField(ev, 'source', 'host') || strField(ev, 'reportingInstance');
  return instance ? `${component}, ${instance}` : component;
}

/** kube's event printer columns; cells read the core/v1 shape. */
export const eventTableColumns: readonly TableColumn[] = [
  stringColumn('Last Seen', 'The time at which the most recent occurrence of this event was recorded.', lastSeen),
  stringColumn('Type', 'Type of this event (Normal, Warning), new types could be added in the future', (ev) => strField(ev, 'type')),
  stringColumn('Reason', 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.', (ev) => strField(ev, 'reason')),
  stringColumn('Object', 'The object that this event is about.', eventTarget),
  stringColumn('Subobject', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.', (ev) => strField(ev, 'involvedObject', 'fieldPath'), 1),
  stringColumn('Source', 'The component reporting this event. Should be a short machine understandable string.', eventSource, 1),
  stringColumn('Message', 'A human-readable description of the status of this operation.', (ev) => strField(ev, 'message').trim()),
  stringColumn('First Seen', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', firstSeen, 1),
  stringColumn('Count', 'The number of times this event has occurred.', eventCount, 1),
  nameColumn(1),
];

/** Field selectors of core events, read from the core/v1 shape. */
export const coreEventFieldSelectors: Readonly<Record<string, (obj: KubeObject) => string>> = {
  'involvedObject.kind': (ev) => strField(ev, 'involvedObject', 'kind'),
  'involvedObject.namespace': (ev) => strField(ev, 'involvedObject', 'namespace'),
  'involvedObject.name': (ev) => strField(ev, 'involvedObject', 'name'),
  'involvedObject.uid': (ev) => strField(ev, 'involvedObject', 'uid'),
  'involvedObject.apiVersion': (ev) => strField(ev, 'involvedObject', 'apiVersion'),
  'involvedObject.resourceVersion': (ev) => strField(ev, 'involvedObject', 'resourceVersion'),
  'involvedObject.fieldPath': (ev) => strField(ev, 'involvedObject', 'fieldPath'),
  reason: (ev) => strField(ev, 'reason'),
  reportingComponent: (ev) => strField(ev, 'reportingComponent'),
  source: (ev) => strField(ev, 'source', 'component') || strField(ev, 'reportingComponent'),
  type: (ev) => strField(ev, 'type'),
};

export const eventType: ResourceType = {
  group: '',
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
  // kube validates core events' names only with the generic path-segment rule.
  nameValidation: 'path-segment',
  tableColumns: eventTableColumns,
  fieldSelectors: coreEventFieldSelectors,
  strategy: {
    validate: (obj) => validateEventCreate(obj, 'core'),
    validateUpdate: (obj, old) => validateEventUpdate(obj, old, 'core'),
  },
  storagePrefix: '/registry/events/',
};
