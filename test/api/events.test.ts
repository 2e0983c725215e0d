import { describe, expect, it } from 'vitest';
import { fieldErrorString } from '../../src/api/field-errors.ts';
import { eventType } from '../../src/api/kinds/event.ts';
import { eventsStorageConversion, eventsV1EventType } from '../../src/api/kinds/events-v1-event.ts';
import type { KubeObject } from '../../src/api/types.ts';

const newStyle: KubeObject = {
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name: 'web.1', namespace: 'default' },
  eventTime: '2024-05-01T10:00:00.123456Z',
  reportingController: 'example.com/controller',
  reportingInstance: 'controller-1',
  action: 'Scale',
  reason: 'Scaled',
  note: 'scaled to 3',
  type: 'Normal',
  regarding: { kind: 'Deployment', namespace: 'default', name: 'web', uid: 'u1', apiVersion: 'apps/v1' },
  related: { kind: 'ReplicaSet', name: 'web-1' },
  series: { count: 2, lastObservedTime: '2024-05-01T10:05:00.000001Z' },
};

describe('events.k8s.io/v1 <-> core/v1 storage conversion', () => {
  it('renames the fields both ways', () => {
    const stored = eventsStorageConversion.toStorage(structuredClone(newStyle));
    expect(stored.apiVersion).toBe('v1');
    expect(stored.kind).toBe('Event');
    expect(stored.involvedObject).toEqual(newStyle.regarding);
    expect(stored.message).toBe('scaled to 3');
    expect(stored.reportingComponent).toBe('example.com/controller');
    expect(stored).not.toHaveProperty('regarding');
    expect(stored).not.toHaveProperty('note');
    expect(stored).not.toHaveProperty('reportingController');
    expect(stored.related).toEqual(newStyle.related);
  });

  it('round-trips a new-style event', () => {
    expect(eventsStorageConversion.fromStorage(eventsStorageConversion.toStorage(structuredClone(newStyle)))).toEqual(newStyle);
  });

  it('round-trips an old-style core event with deprecated fields', () => {
    const core: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pod.1', namespace: 'default' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', fieldPath: 'spec.containers{app}' },
      reason: 'Pulled',
      message: 'pulled image',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2024-05-01T10:00:00Z',
      lastTimestamp: '2024-05-01T10:10:00Z',
      count: 4,
      type: 'Normal',
    };
    const served = eventsStorageConversion.fromStorage(structuredClone(core));
    expect(served).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      regarding: core.involvedObject,
      note: 'pulled image',
      deprecatedSource: core.source,
      deprecatedFirstTimestamp: core.firstTimestamp,
      deprecatedLastTimestamp: core.lastTimestamp,
      deprecatedCount: 4,
    });
    expect(eventsStorageConversion.toStorage(served)).toEqual(core);
  });
});

describe('event validation', () => {
  const strictCreate = (o: KubeObject) => (eventsV1EventType.strategy.validate?.(o) ?? []).map(fieldErrorString);

  it('accepts a complete events.k8s.io/v1 event in either shape', () => {
    expect(strictCreate(structuredClone(newStyle))).toEqual([]);
    expect(strictCreate(eventsStorageConversion.toStorage(structuredClone(newStyle)))).toEqual([]);
  });

  it('requires eventTime, action, reason, reportingController and reportingInstance through events.k8s.io/v1', () => {
    const bare: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, type: 'Normal' };
    expect(strictCreate(bare)).toEqual(['eventTime: Required value']);
    const withTime = { ...bare, eventTime: '2024-05-01T10:00:00.000000Z', type: 'Bad', deprecatedCount: 3 };
    const errs = strictCreate(withTime);
    // kube also runs the qualified-name check on the empty controller name.
    expect(errs.filter((e) => e.startsWith('reportingController: Invalid value: "": name part'))).toHaveLength(2);
    expect(errs.filter((e) => !e.startsWith('reportingController: Invalid value'))).toEqual([
      'reportingController: Required value',
      'reportingInstance: Required value',
      'action: Required value',
      'reason: Required value',
      'type: Invalid value: "": has invalid value: Bad',
      'count: Invalid value: "": needs to be unset',
    ]);
  });

  it('checks the series', () => {
    const errs = strictCreate({ ...structuredClone(newStyle), series: { count: 1 } });
    expect(errs).toEqual(['series.count: Invalid value: "": should be at least 2', 'series.lastObservedTime: Required value']);
  });

  it('keeps legacy rules for core/v1 events', () => {
    const old: KubeObject = { metadata: { name: 'e', namespace: 'team' }, involvedObject: { kind: 'Pod', namespace: 'other', name: 'p' } };
    expect((eventType.strategy.validate?.(old) ?? []).map(fieldErrorString)).toEqual([
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    ]);
    expect(eventType.strategy.validate?.({ metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Node', name: 'n1' } })).toEqual([]);
  });

  it('names the reporting controller reportingComponent on core/v1 events with an eventTime', () => {
    const ev: KubeObject = { metadata: { name: 'e', namespace: 'default' }, eventTime: '2024-01-01T00:00:00.000000Z', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal' };
    const errs = (eventType.strategy.validate?.(ev) ?? []).map(fieldErrorString);
    expect(errs[0]).toBe('reportingComponent: Required value');
    expect(errs.length).toBeGreaterThan(1);
    expect(errs.every((e) => e.startsWith('reportingComponent: '))).toBe(true);
  });

  it('makes almost everything immutable on events.k8s.io/v1 updates', () => {
    const old = eventsStorageConversion.toStorage(structuredClone(newStyle));
    const changed = { ...structuredClone(newStyle), note: 'other', action: 'Delete' };
    const errs = (eventsV1EventType.strategy.validateUpdate?.(changed, eventsStorageConversion.fromStorage(old)) ?? []).map(fieldErrorString);
    expect(errs).toEqual(['message: Invalid value: "other": field is immutable', 'action: Invalid value: "Delete": field is immutable']);
  });
});

describe('event field selectors', () => {
  it('offers the core labels, with source falling back to reportingComponent', () => {
    const core = eventsStorageConversion.toStorage(structuredClone(newStyle));
    expect(eventType.fieldSelectors['involvedObject.name']!(core)).toBe('web');
    expect(eventType.fieldSelectors['source']!(core)).toBe('example.com/controller');
    expect(eventType.fieldSelectors['reportingComponent']!(core)).toBe('example.com/controller');
    expect(Object.keys(eventType.fieldSelectors).sort()).toEqual(
      [
        'involvedObject.kind',
        'involvedObject.namespace',
        'involvedObject.name',
        'involvedObject.uid',
        'involvedObject.apiVersion',
        'involvedObject.resourceVersion',
        'involvedObject.fieldPath',
        'reason',
        'reportingComponent',
        'source',
        'type',
      ].sort(),
    );
  });

  it('offers regarding.* and reportingController on events.k8s.io, in either shape', () => {
    expect(eventsV1EventType.fieldSelectors['regarding.kind']!(newStyle)).toBe('Deployment');
    expect(eventsV1EventType.fieldSelectors['reportingController']!(eventsStorageConversion.toStorage(structuredClone(newStyle)))).toBe(
      'example.com/controller',
    );
    expect(eventsV1EventType.storagePrefix).toBe(eventType.storagePrefix);
  });
});
