import { describe, expect, it } from 'vitest';
import type { KubeObject, ResourceType } from '../../src/api/types.ts';
import { encodeTableJson, partialMetadataMismatch, tableWatchEventObject, toPartialObjectMetadata, toPartialObjectMetadataList, toTable, type IncludeObject } from '../../src/codec/table.ts';
import { encodeJson, stringifyGo } from '../../src/codec/json-encode.ts';

function resourceType(columns: ResourceType['tableColumns'] = []): ResourceType {
  return {
    group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', singular: 'configmap',
    namespaced: true, shortNames: ['cm'], categories: [], schema: {} as ResourceType['schema'], hasStatus: false,
    nameValidation: 'dns1123-subdomain', tableColumns: columns, fieldSelectors: {}, strategy: {}, storagePrefix: '/registry/configmaps/',
  };
}

const cm: KubeObject = {
  apiVersion: 'v1', kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'd', resourceVersion: '7', creationTimestamp: '2026-01-02T03:04:05Z' },
  data: { x: '1', y: '2' },
};
const now = new Date('2026-01-02T03:09:05Z');

describe('toTable', () => {
  it('serves the default Name / Created At table with PartialObjectMetadata rows and list metadata', () => {
    const t = toTable([cm], resourceType(), { now, listMeta: { resourceVersion: '9', continue: 'tok', remainingItemCount: 3 } });
    expect(t.kind).toBe('Table');
    expect(t.apiVersion).toBe('meta.k8s.io/v1');
    expect(t.metadata).toEqual({ resourceVersion: '9', continue: 'tok', remainingItemCount: 3 });
    expect(t.columnDefinitions!.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Created At', 'date', '', 0],
    ]);
    expect(t.rows).toEqual([
      { cells: ['a', '2026-01-02T03:04:05Z'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata } },
    ]);
  });

  it('uses the resource columns as listed and honours includeObject', () => {
    const rt = resourceType([
      { name: 'Name', type: 'string', format: 'name', description: 'name', priority: 0, cell: (o) => o.metadata?.name ?? '' },
      { name: 'Data', type: 'integer', description: 'entries', priority: 0, cell: (o) => Object.keys((o['data'] as object) ?? {}).length },
      { name: 'Age', type: 'string', description: 'age', priority: 0, cell: (o, n) => `${(n.getTime() - Date.parse(o.metadata!.creationTimestamp!)) / 60000}m` },
    ]);
    const t = toTable([cm], rt, { now, includeObject: 'Object', version: 'v1beta1' });
    expect(t.apiVersion).toBe('meta.k8s.io/v1beta1');
    expect(t.columnDefinitions!.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
    expect(t.rows[0]).toEqual({ cells: ['a', 2, '5m'], object: cm });
    expect(toTable([cm], rt, { now, includeObject: 'None' }).rows[0]!.object).toBeNull();
    expect(() => toTable([cm], rt, { now, includeObject: 'Bogus' as 'None' })).toThrow(/unrecognized includeObject value: "Bogus"/);
  });

  it('prints Go zero time when there is no creation timestamp', () => {
    expect(toTable([{ metadata: { name: 'z' } }], resourceType(), { now }).rows[0]!.cells[1]).toBe('0001-01-01T00:00:00Z');
  });
});

describe('table watch events', () => {
  it('sends one row per event, headers only on the first, resourceVersion of the object', () => {
    const rt = resourceType();
    const first = tableWatchEventObject('ADDED', cm, rt, { now, firstEvent: true }) as ReturnType<typeof toTable>;
    const later = tableWatchEventObject('MODIFIED', cm, rt, { now, firstEvent: false }) as ReturnType<typeof toTable>;
    expect(first.rows).toHaveLength(1);
    expect(first.columnDefinitions).toHaveLength(2);
    expect(first.metadata).toEqual({ resourceVersion: '7' });
    expect(later.columnDefinitions).toBeNull();
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure' };
    expect(tableWatchEventObject('ERROR', status, rt, { now, firstEvent: false })).toBe(status);
  });
});

describe('PartialObjectMetadataList', () => {
  it('keeps list metadata and strips items to metadata', () => {
    const l = toPartialObjectMetadataList([cm], { resourceVersion: '9' });
    expect(l).toEqual({
      kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '9' },
      items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata }],
    });
    expect(partialMetadataMismatch('PartialObjectMetadata', '*v1.ConfigMapList').code).toBe(406);
  });
});

describe('encodeTableJson', () => {
  const odd: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b<&>', namespace: 'd', annotations: { q: '\u2028"x"' } }, data: {} };
  const columns: ResourceType['tableColumns'] = [
    { name: 'Name', type: 'string', format: 'name', description: 'name', priority: 0, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Data', type: 'integer', description: 'entries <n>', priority: 0, cell: (o) => Object.keys((o['data'] as object) ?? {}).length },
  ];
  it('writes exactly the bytes of the encoded Table, with row objects spliced from their memoized JSON', () => {
    for (const rt of [resourceType(), resourceType(columns)]) {
      for (const includeObject of ['Metadata', 'Object', 'None'] as IncludeObject[]) {
        for (const version of ['v1', 'v1beta1'] as const) {
          for (const objects of [[], [cm], [cm, odd]]) {
            const opts = { includeObject, now, version, listMeta: { resourceVersion: '9', continue: 'c<', remainingItemCount: 2 } };
            const rowJson = (i: number) => Buffer.from(stringifyGo(includeObject === 'Object' ? objects[i] : toPartialObjectMetadata(objects[i]!, version)));
            expect(encodeTableJson(objects, rt, opts, rowJson).toString()).toBe(encodeJson(toTable(objects, rt, opts)));
          }
        }
      }
    }
  });

  it('refuses an unknown includeObject as toTable does', () => {
    expect(() => encodeTableJson([cm], resourceType(), { includeObject: 'All' as IncludeObject, now }, () => Buffer.from('{}'))).toThrow('unrecognized includeObject value: "All"');
  });
});
