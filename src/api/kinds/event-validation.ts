/**
 * Event validation as kube's `core/validation/events.go` does it, on the core/v1 shape that both
 * `v1` and `events.k8s.io/v1` events are stored in. Requests through `events.k8s.io/v1` get the strict rules.
 */
import type { FieldError } from '../field-errors.ts';
import { fieldErr } from '../field-errors.ts';
import type { KubeObject } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import { validateCoreFinalizerNames, validateImmutableField } from '../validation/metadata.ts';
import { byteLength, isDns1123Subdomain, isQualifiedName } from '../validation/names.ts';
import { objField, strField } from './common-schemas.ts';

/** Which API the request came through: the legacy core group, or the strict `events.k8s.io/v1`. */
export type EventApi = 'core' | 'events';

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** Whether a metav1.Time or MicroTime value is unset (Go's zero time). */
export function isZeroTime(v: unknown): boolean {
  return typeof v !== 'string' || v === '' || v.startsWith('0001-01-01T00:00:00');
}

function numberField(obj: Record<string, unknown>, key: string): number {
  const v = obj[key];
  return typeof v === 'number' ? v : 0;
}

function validateLegacy(ev: KubeObject, api: EventApi): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = ev.metadata?.namespace ?? '';
  const involvedNs = strField(ev, 'involvedObject', 'namespace');
  const mismatch = () => fieldErr.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace');
  if (isZeroTime(ev.eventTime)) {
    // Old-style event: its namespace and the involved object's must agree ("default" tolerated for old clients).
    if (involvedNs === '') {
      if (namespace !== '' && namespace !== 'default') errs.push(mismatch());
    } else if (namespace !== involvedNs) {
      errs.push(mismatch());
    }
  } else {
    if (involvedNs === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const controller = strField(ev, 'reportingComponent');
    // kube names the field as the request's version spells it: reportingComponent in core v1.
    const controllerPath = api === 'core' ? 'reportingComponent' : 'reportingController';
    if (controller === '') errs.push(fieldErr.required(controllerPath));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErr.invalid(controllerPath, controller, msg));
    const instance = strField(ev, 'reportingInstance');
    if (instance === '') errs.push(fieldErr.required('reportingInstance'));
    if (byteLength(instance) > REPORTING_INSTANCE_LIMIT) {
      errs.push(fieldErr.invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LIMIT} characters`));
    }
    const action = strField(ev, 'action');
    if (action === '') errs.push(fieldErr.required('action'));
    if (byteLength(action) > ACTION_LIMIT) errs.push(fieldErr.invalid('action', '', `can have at most ${ACTION_LIMIT} characters`));
    const reason = strField(ev, 'reason');
    if (reason === '') errs.push(fieldErr.required('reason'));
    if (byteLength(reason) > REASON_LIMIT) errs.push(fieldErr.invalid('reason', '', `can have at most ${REASON_LIMIT} characters`));
    if (byteLength(strField(ev, 'message')) > NOTE_LIMIT) errs.push(fieldErr.invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const msg of isDns1123Subdomain(namespace)) errs.push(fieldErr.invalid('namespace', namespace, msg));
  return errs;
}

function validateSeries(ev: KubeObject): FieldError[] {
  const series = objField(ev, 'series');
  if (!series) return [];
  const errs: FieldError[] = [];
  if (numberField(series, 'count') < 2) errs.push(fieldErr.invalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(series.lastObservedTime)) errs.push(fieldErr.required('series.lastObservedTime'));
  return errs;
}

/** Errors in a new event (core/v1 shape); metadata is validated generically. */
export function validateEventCreate(ev: KubeObject, api: EventApi): FieldError[] {
  const errs = validateLegacy(ev, api);
  if (api === 'core') return errs;
  errs.push(...validateCoreFinalizerNames(ev.metadata));
  errs.push(...validateSeries(ev));
  if (isZeroTime(ev.eventTime)) errs.push(fieldErr.required('eventTime'));
  const type = strField(ev, 'type');
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErr.invalid('type', '', `has invalid value: ${type}`));
  if (!isZeroTime(ev.firstTimestamp)) errs.push(fieldErr.invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(ev.lastTimestamp)) errs.push(fieldErr.invalid('lastTimestamp', '', 'needs to be unset'));
  if (numberField(ev, 'count') !== 0) errs.push(fieldErr.invalid('count', '', 'needs to be unset'));
  if (strField(ev, 'source', 'component') !== '' || strField(ev, 'source', 'host') !== '') {
    errs.push(fieldErr.invalid('source', '', 'needs to be unset'));
  }
  return errs;
}

const IMMUTABLE_EVENT_FIELDS = [
  'involvedObject',
  'reason',
  'message',
  'source',
  'firstTimestamp',
  'lastTimestamp',
  'count',
  'type',
  'eventTime',
  'action',
  'related',
] as const;

/** Errors in an event update (core/v1 shape): through events.k8s.io/v1 almost every field is immutable. */
export function validateEventUpdate(ev: KubeObject, old: KubeObject, api: EventApi): FieldError[] {
  const errs = validateLegacy(ev, api);
  if (api === 'core') return errs;
  errs.push(...validateCoreFinalizerNames(ev.metadata));
  if (!semanticEqual(ev.series, old.series)) errs.push(...validateSeries(ev));
  for (const f of IMMUTABLE_EVENT_FIELDS) errs.push(...validateImmutableField(ev[f], old[f], f));
  errs.push(...validateImmutableField(ev.reportingComponent, old.reportingComponent, 'reportingController'));
  errs.push(...validateImmutableField(ev.reportingInstance, old.reportingInstance, 'reportingInstance'));
  return errs;
}
