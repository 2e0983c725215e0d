import { describe, expect, it } from 'vitest';
import { aggregateFieldErrors, fieldErrorString } from '../../src/api/field-errors.ts';
import { TOTAL_ANNOTATION_SIZE_LIMIT, validateObjectMeta, validateObjectMetaUpdate } from '../../src/api/validation/metadata.ts';

const nsd = { namespaced: true, nameValidation: 'dns1123-subdomain' } as const;
const cluster = { namespaced: false, nameValidation: 'dns1123-label' } as const;
const msgs = (errs: ReturnType<typeof validateObjectMeta>) => errs.map(fieldErrorString);

describe('validateObjectMeta', () => {
  it('accepts a valid namespaced object', () => {
    expect(validateObjectMeta({ name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { 'example.com/Note': 'x' } }, nsd)).toEqual([]);
  });

  it('requires a name', () => {
    expect(msgs(validateObjectMeta({ namespace: 'default' }, nsd))).toEqual(['metadata.name: Required value: name or generateName is required']);
  });

  it('reports an invalid name with its value', () => {
    expect(msgs(validateObjectMeta({ name: 'Web', namespace: 'default' }, nsd))[0]).toMatch(
      /^metadata\.name: Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of/,
    );
  });

  it('validates generateName as a prefix', () => {
    expect(validateObjectMeta({ name: 'web-abcde', generateName: 'web-', namespace: 'd' }, nsd)).toEqual([]);
    expect(msgs(validateObjectMeta({ name: 'x', generateName: 'Web-', namespace: 'd' }, nsd))[0]).toMatch(/^metadata\.generateName: Invalid value: "Web-": /);
  });

  it('requires a namespace for namespaced kinds and forbids it for cluster-scoped ones', () => {
    expect(msgs(validateObjectMeta({ name: 'a' }, nsd))).toEqual(['metadata.namespace: Required value']);
    expect(msgs(validateObjectMeta({ name: 'a', namespace: 'x' }, cluster))).toEqual(['metadata.namespace: Forbidden: not allowed on this type']);
    expect(msgs(validateObjectMeta({ name: 'a', namespace: 'Bad.NS' }, nsd))[0]).toMatch(/^metadata\.namespace: Invalid value: "Bad\.NS": /);
  });

  it('reports bad label keys and values at metadata.labels', () => {
    const errs = msgs(validateObjectMeta({ name: 'a', namespace: 'd', labels: { 'a/b/c': 'ok', good: '-bad-' } }, nsd));
    expect(errs).toHaveLength(2);
    expect(errs[0]).toMatch(/^metadata\.labels: Invalid value: "a\/b\/c": a qualified name/);
    expect(errs[1]).toMatch(/^metadata\.labels: Invalid value: "-bad-": a valid label must be an empty string/);
  });

  it('checks annotation keys case-insensitively and limits their total size', () => {
    expect(validateObjectMeta({ name: 'a', namespace: 'd', annotations: { 'Example.COM/Key': 'v' } }, nsd)).toEqual([]);
    const big = { k: 'v'.repeat(TOTAL_ANNOTATION_SIZE_LIMIT) };
    expect(msgs(validateObjectMeta({ name: 'a', namespace: 'd', annotations: big }, nsd))).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });

  it('validates finalizers and owner references', () => {
    const errs = msgs(
      validateObjectMeta(
        {
          name: 'a',
          namespace: 'd',
          finalizers: ['orphan', 'foregroundDeletion'],
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '1', controller: true },
            { apiVersion: 'v1', kind: 'Event', name: 'e', uid: '2', controller: true },
            { apiVersion: '', kind: '', name: '', uid: '' },
          ],
        },
        nsd,
      ),
    );
    expect(errs).toContain('metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty');
    // Each names its field, as apimachinery's validateOwnerReference words it.
    expect(errs).toContain('metadata.ownerReferences.kind: Invalid value: "": kind must not be empty');
    expect(errs).toContain('metadata.ownerReferences.name: Invalid value: "": name must not be empty');
    expect(errs).toContain('metadata.ownerReferences.uid: Invalid value: "": uid must not be empty');
    expect(errs.some((e) => e.includes('/v1, Kind=Event is disallowed from being an owner'))).toBe(true);
    expect(errs.some((e) => e.includes('Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs and Event/e'))).toBe(true);
    // The bad values print as Go's %#v of v1.OwnerReference (pointer fields as addresses or nil), as kube's do.
    expect(errs).toContain(
      'metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"2", Controller:(*bool)(0xc000a1c0a8), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
    );
    expect(errs.find((e) => e.includes('Only one reference'))).toMatch(
      /^metadata\.ownerReferences: Invalid value: \[\]v1\.OwnerReference\{v1\.OwnerReference\{APIVersion:"apps\/v1", Kind:"ReplicaSet", Name:"rs", UID:"1", Controller:\(\*bool\)\(0x[0-9a-f]+\), BlockOwnerDeletion:\(\*bool\)\(nil\)\}, v1\.OwnerReference\{APIVersion:"v1", Kind:"Event"/,
    );
    expect(errs.some((e) => e.endsWith('finalizer orphan and foregroundDeletion cannot be both set'))).toBe(true);
  });

  it('checks managedFields operations', () => {
    expect(msgs(validateObjectMeta({ name: 'a', namespace: 'd', managedFields: [{ manager: 'm', operation: 'Patch' as never }] }, nsd))).toEqual([
      'metadata.managedFields.operation: Invalid value: "Patch": must be `Apply` or `Update`',
    ]);
  });

  it('forbids negative generations', () => {
    expect(msgs(validateObjectMeta({ name: 'a', namespace: 'd', generation: -1 }, nsd))).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old = { name: 'a', namespace: 'd', uid: 'u1', resourceVersion: '5', creationTimestamp: '2024-01-01T00:00:00Z', generation: 2 };

  it('accepts an unchanged identity', () => {
    expect(validateObjectMetaUpdate({ ...old, labels: { x: 'y' } }, old)).toEqual([]);
    expect(validateObjectMetaUpdate({ ...old, creationTimestamp: '2024-01-01T00:00:00+00:00' }, old)).toEqual([]);
  });

  it('reports immutable fields', () => {
    const errs = msgs(validateObjectMetaUpdate({ ...old, name: 'b', uid: 'u2', creationTimestamp: '2025-01-01T00:00:00Z' }, old));
    expect(errs).toEqual([
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable',
    ]);
  });

  it('requires a resourceVersion and forbids decrementing generation', () => {
    expect(msgs(validateObjectMetaUpdate({ ...old, resourceVersion: undefined }, old))).toEqual([]);
    expect(msgs(validateObjectMetaUpdate({ ...old, resourceVersion: undefined, generation: 1 }, old, 'metadata', { requireResourceVersion: true }))).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
    ]);
  });

  it('forbids new finalizers on a terminating object', () => {
    const terminating = { ...old, deletionTimestamp: '2024-02-01T00:00:00Z', finalizers: ['a.io/x'] };
    const errs = validateObjectMetaUpdate({ ...terminating, finalizers: ['a.io/x', 'b.io/y'] }, terminating);
    expect(aggregateFieldErrors(errs)).toBe(
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}',
    );
    expect(validateObjectMetaUpdate({ ...terminating, finalizers: [] }, terminating)).toEqual([]);
  });
});
