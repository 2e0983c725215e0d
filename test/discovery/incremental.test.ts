/**
 * Discovery documents follow a changing set of types without rebuilding every group: built from
 * the previous documents, a group whose types are the same objects keeps its pieces, and the
 * result equals a build from scratch.
 */
import { describe, expect, it } from 'vitest';
import { builtinResourceTypes } from '../../src/api/builtin.ts';
import { DiscoveryDocuments } from '../../src/discovery/discovery.ts';
import { customResourceType } from '../../src/crd/custom-resource.ts';
import type { KubeObject, ResourceType } from '../../src/api/types.ts';

function crdType(group: string, plural: string, kind: string): ResourceType {
  const version = { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } };
  const crd: KubeObject = { spec: { group, scope: 'Namespaced', names: { plural, kind }, versions: [version] } };
  return customResourceType(crd, version);
}

describe('incremental discovery', () => {
  it('reuses the pieces of unchanged groups and answers as a build from scratch', () => {
    const many = Array.from({ length: 200 }, (_, i) => crdType(`g${i}.example.com`, 'things', 'Thing'));
    const first = new DiscoveryDocuments([...builtinResourceTypes, ...many], '127.0.0.1:6443');
    const added = crdType('new.example.com', 'gadgets', 'Gadget');
    const next = new DiscoveryDocuments([...builtinResourceTypes, ...many, added], '127.0.0.1:6443', [], first);
    // Unchanged groups: the very same documents.
    expect(next.resourceList('g7.example.com', 'v1')).toBe(first.resourceList('g7.example.com', 'v1'));
    expect(next.resourceList('', 'v1')).toBe(first.resourceList('', 'v1'));
    expect(next.resourceList('new.example.com', 'v1')).toMatchObject({ groupVersion: 'new.example.com/v1', resources: [{ name: 'gadgets', kind: 'Gadget' }] });
    // The same bytes as a build from scratch, and a new ETag.
    const scratch = new DiscoveryDocuments([...builtinResourceTypes, ...many, added], '127.0.0.1:6443');
    expect(next.aggregated('apis', 'v2').equals(scratch.aggregated('apis', 'v2'))).toBe(true);
    expect(next.aggregated('api', 'v2beta1').equals(scratch.aggregated('api', 'v2beta1'))).toBe(true);
    expect(next.aggregatedETag('apis', 'v2')).toBe(scratch.aggregatedETag('apis', 'v2'));
    expect(next.aggregatedETag('apis', 'v2')).not.toBe(first.aggregatedETag('apis', 'v2'));
    expect(next.aggregatedETag('apis', 'v2')).toMatch(/^"[0-9A-F]{128}"$/);
    const doc = JSON.parse(next.aggregated('apis', 'v2').toString()) as { apiVersion: string; items: { metadata: { name: string } }[] };
    expect(doc.apiVersion).toBe('apidiscovery.k8s.io/v2');
    expect(doc.items.map((i) => i.metadata.name)).toContain('new.example.com');
    // A changed type (same group) rebuilds its group.
    const changed = crdType('g7.example.com', 'things', 'Thing');
    const third = new DiscoveryDocuments([...builtinResourceTypes, ...many.map((t, i) => (i === 7 ? changed : t)), added], '127.0.0.1:6443', [], next);
    expect(third.resourceList('g7.example.com', 'v1')).not.toBe(next.resourceList('g7.example.com', 'v1'));
    expect(third.resourceList('g8.example.com', 'v1')).toBe(next.resourceList('g8.example.com', 'v1'));
  });
});
