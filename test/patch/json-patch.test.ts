import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/status-errors.ts';
import { applyJsonPatch, decodeJsonPatch, MAX_JSON_PATCH_OPERATIONS } from '../../src/patch/json-patch.ts';

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

const base = () => ({ metadata: { name: 'a', labels: { app: 'web', 'a/b': 'x', 'm~n': 'y' } }, spec: { list: [1, 2, 3], obj: { k: 'v' } } });

describe('applyJsonPatch: operations', () => {
  const cases: ReadonlyArray<{ name: string; ops: unknown[]; want: (d: ReturnType<typeof base>) => unknown }> = [
    { name: 'add a member', ops: [{ op: 'add', path: '/metadata/labels/tier', value: 'fe' }], want: (d) => ({ ...d, metadata: { ...d.metadata, labels: { ...d.metadata.labels, tier: 'fe' } } }) },
    { name: 'add replaces an existing member', ops: [{ op: 'add', path: '/spec/obj/k', value: 'w' }], want: (d) => ({ ...d, spec: { ...d.spec, obj: { k: 'w' } } }) },
    { name: 'add inserts into an array', ops: [{ op: 'add', path: '/spec/list/1', value: 9 }], want: (d) => ({ ...d, spec: { ...d.spec, list: [1, 9, 2, 3] } }) },
    { name: 'add with - appends', ops: [{ op: 'add', path: '/spec/list/-', value: 4 }], want: (d) => ({ ...d, spec: { ...d.spec, list: [1, 2, 3, 4] } }) },
    { name: 'add at index == length appends', ops: [{ op: 'add', path: '/spec/list/3', value: 4 }], want: (d) => ({ ...d, spec: { ...d.spec, list: [1, 2, 3, 4] } }) },
    { name: 'negative index counts from the end (evanphx)', ops: [{ op: 'remove', path: '/spec/list/-1' }], want: (d) => ({ ...d, spec: { ...d.spec, list: [1, 2] } }) },
    { name: 'remove a member', ops: [{ op: 'remove', path: '/spec/obj' }], want: (d) => ({ ...d, spec: { list: [1, 2, 3] } }) },
    { name: '~1 decodes to /', ops: [{ op: 'remove', path: '/metadata/labels/a~1b' }], want: (d) => ({ ...d, metadata: { name: 'a', labels: { app: 'web', 'm~n': 'y' } } }) },
    { name: '~0 decodes to ~', ops: [{ op: 'replace', path: '/metadata/labels/m~0n', value: 'z' }], want: (d) => ({ ...d, metadata: { ...d.metadata, labels: { ...d.metadata.labels, 'm~n': 'z' } } }) },
    { name: 'replace an array element', ops: [{ op: 'replace', path: '/spec/list/0', value: 'x' }], want: (d) => ({ ...d, spec: { ...d.spec, list: ['x', 2, 3] } }) },
    { name: 'move', ops: [{ op: 'move', from: '/spec/obj', path: '/spec/moved' }], want: (d) => ({ ...d, spec: { list: [1, 2, 3], moved: { k: 'v' } } }) },
    { name: 'copy', ops: [{ op: 'copy', from: '/spec/obj', path: '/spec/copied' }], want: (d) => ({ ...d, spec: { ...d.spec, copied: { k: 'v' } } }) },
    { name: 'test passes then add', ops: [{ op: 'test', path: '/metadata/name', value: 'a' }, { op: 'add', path: '/x', value: 1 }], want: (d) => ({ ...d, x: 1 }) },
    { name: 'test of an absent member against null passes', ops: [{ op: 'test', path: '/metadata/missing', value: null }], want: (d) => d },
    { name: 'test compares objects structurally', ops: [{ op: 'test', path: '/spec/obj', value: { k: 'v' } }], want: (d) => d },
    { name: 'add with no value adds null', ops: [{ op: 'add', path: '/n' }], want: (d) => ({ ...d, n: null }) },
    // evanphx/json-patch v4 as kube-apiserver 1.32 uses it: an absent member reads as null.
    { name: 'replace of a missing member adds it', ops: [{ op: 'replace', path: '/spec/obj/new', value: 1 }], want: (d) => ({ ...d, spec: { ...d.spec, obj: { k: 'v', new: 1 } } }) },
    { name: 'copy from a missing member stores null', ops: [{ op: 'copy', from: '/spec/nope', path: '/spec/c' }], want: (d) => ({ ...d, spec: { ...d.spec, c: null } }) },
    { name: 'test of a missing member without value passes', ops: [{ op: 'test', path: '/spec/nope' }], want: (d) => d },
    // The first segment of a path is dropped whatever it is: `spec/x` means `/x`.
    { name: 'a path without a leading slash drops its first segment', ops: [{ op: 'add', path: 'spec/x', value: 1 }], want: (d) => ({ ...d, x: 1 }) },
    { name: 'a relative path walks from its second segment', ops: [{ op: 'replace', path: 'ignored/spec/obj/k', value: 'w' }], want: (d) => ({ ...d, spec: { ...d.spec, obj: { k: 'w' } } }) },
    { name: 'replace of the whole document', ops: [{ op: 'replace', path: '', value: { a: 1 } }], want: () => ({ a: 1 }) },
    { name: 'replace of the whole document with a scalar is ignored', ops: [{ op: 'replace', path: '', value: 3 }], want: (d) => d },
    { name: 'test of the whole document', ops: [{ op: 'test', path: '', value: base() }], want: (d) => d },
    { name: 'negative index on replace', ops: [{ op: 'replace', path: '/spec/list/-3', value: 0 }], want: (d) => ({ ...d, spec: { ...d.spec, list: [0, 2, 3] } }) },
    { name: 'add at -1 appends (the index counts in the grown array)', ops: [{ op: 'add', path: '/spec/list/-1', value: 7 }], want: (d) => ({ ...d, spec: { ...d.spec, list: [1, 2, 3, 7] } }) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const doc = base();
      expect(applyJsonPatch(doc, c.ops)).toEqual(c.want(base()));
      expect(doc).toEqual(base());
    });
  }

  it('does not share values with the patch', () => {
    const value = { deep: [1] };
    const out = applyJsonPatch({}, [{ op: 'add', path: '/v', value }]) as { v: { deep: number[] } };
    out.v.deep.push(2);
    expect(value.deep).toEqual([1]);
  });
});

describe('applyJsonPatch: failures are kube-apiserver Status errors', () => {
  const rejected: ReadonlyArray<{ name: string; ops: unknown[]; cause: string }> = [
    { name: 'failed test', ops: [{ op: 'test', path: '/metadata/name', value: 'b' }], cause: 'testing value /metadata/name failed: test failed' },
    { name: 'test of absent member with a value', ops: [{ op: 'test', path: '/metadata/nope', value: 'b' }], cause: 'testing value /metadata/nope failed: test failed' },
    { name: 'remove of a missing member', ops: [{ op: 'remove', path: '/spec/nope' }], cause: "error in remove for path: '/spec/nope': Unable to remove nonexistent key: nope: missing value" },
    { name: 'add under a missing parent', ops: [{ op: 'add', path: '/no/such', value: 1 }], cause: 'add operation does not apply: doc is missing path: "/no/such": missing value' },
    { name: 'replace under a missing parent', ops: [{ op: 'replace', path: '/no/such', value: 1 }], cause: 'replace operation does not apply: doc is missing path: /no/such: missing value' },
    { name: 'replace beyond an array', ops: [{ op: 'replace', path: '/spec/list/3', value: 1 }], cause: 'replace operation does not apply: doc is missing key: /spec/list/3: Unable to access invalid index: 3: invalid index referenced' },
    { name: 'move from a missing member', ops: [{ op: 'move', from: '/spec/nope', path: '/spec/x' }], cause: "error in move for path: 'nope': Unable to remove nonexistent key: nope: missing value" },
    { name: 'index out of range', ops: [{ op: 'add', path: '/spec/list/5', value: 1 }], cause: "error in add for path: '/spec/list/5': Unable to access invalid index: 5: invalid index referenced" },
    { name: 'unknown op', ops: [{ op: 'frobnicate', path: '/a' }], cause: 'Unexpected kind: frobnicate' },
    { name: 'add at the whole document', ops: [{ op: 'add', path: '', value: {} }], cause: 'add operation does not apply: doc is missing path: "": missing value' },
    { name: 'a one-segment path', ops: [{ op: 'remove', path: 'spec' }], cause: 'remove operation does not apply: doc is missing path: "spec": missing value' },
    { name: 'missing path field', ops: [{ op: 'add', value: 1 }], cause: 'add operation failed to decode path: operation missing path field: missing value' },
  ];
  for (const c of rejected) {
    it(c.name, () => {
      const err = apiError(() => applyJsonPatch(base(), c.ops));
      expect(err.code).toBe(422);
      expect(err.reason).toBe('Invalid');
      expect(err.message).toBe('the server rejected our request due to an error in our request');
      expect((err as unknown as { cause: string }).cause).toBe(c.cause);
      expect(err.toStatus()).toMatchObject({ kind: 'Status', code: 422, reason: 'Invalid', details: {} });
    });
  }

  it('a failed test leaves earlier operations unapplied to the input', () => {
    const doc = base();
    apiError(() => applyJsonPatch(doc, [{ op: 'add', path: '/x', value: 1 }, { op: 'test', path: '/x', value: 2 }]));
    expect(doc).toEqual(base());
  });

  const malformed: ReadonlyArray<{ body: unknown; message: string }> = [
    { body: { op: 'add' }, message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' },
    { body: 'x', message: 'json: cannot unmarshal string into Go value of type jsonpatch.Patch' },
    { body: [1], message: 'json: cannot unmarshal number into Go value of type jsonpatch.Operation' },
    { body: [[]], message: 'json: cannot unmarshal array into Go value of type jsonpatch.Operation' },
  ];
  for (const c of malformed) {
    it(`400 for ${JSON.stringify(c.body)}`, () => {
      const err = apiError(() => applyJsonPatch({}, c.body));
      expect([err.code, err.reason, err.message]).toEqual([400, 'BadRequest', c.message]);
    });
  }

  it('a null body is an empty patch', () => {
    expect(decodeJsonPatch(null)).toEqual([]);
  });

  it('413 above the operation limit', () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/a', value: 1 }));
    const err = apiError(() => applyJsonPatch({ a: 1 }, ops));
    expect(err.code).toBe(413);
    expect(err.reason).toBe('RequestEntityTooLarge');
    expect(err.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
    expect(() => applyJsonPatch({ a: 1 }, ops.slice(1))).not.toThrow();
  });

  it('limits the bytes copy operations may add', () => {
    const ops = Array.from({ length: 30 }, () => ({ op: 'copy', from: '/a', path: '/a/-' }));
    const err = apiError(() => applyJsonPatch({ a: ['xxxxxxxxxx'] }, ops, { maxCopyBytes: 100_000 }));
    expect(err.code).toBe(422);
    expect((err as unknown as { cause: string }).cause).toMatch(/^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 100000$/);
  });
});
