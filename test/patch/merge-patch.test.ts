import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/status-errors.ts';
import { applyMergePatch, createMergePatch } from '../../src/patch/merge-patch.ts';

describe('applyMergePatch: RFC 7386 appendix A', () => {
  const cases: ReadonlyArray<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [doc, patch, want] of cases) {
    it(`${JSON.stringify(doc)} + ${JSON.stringify(patch)}`, () => {
      const before = JSON.stringify(doc);
      expect(applyMergePatch(doc, patch)).toEqual(want);
      expect(JSON.stringify(doc)).toBe(before);
    });
  }

  it('keeps nulls inside arrays but prunes them from objects in arrays', () => {
    expect(applyMergePatch({}, { a: [null, { x: null, y: 1 }] })).toEqual({ a: [null, { y: 1 }] });
  });

  for (const patch of [null, 'bar', 3, true]) {
    it(`rejects a ${JSON.stringify(patch)} patch like kube-apiserver (400 Invalid JSON Patch)`, () => {
      let err: unknown;
      try {
        applyMergePatch({ a: 'foo' }, patch);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 400, reason: 'BadRequest', message: 'Invalid JSON Patch' });
    });
  }

  it('does not let __proto__ in a patch change prototypes', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}');
    const out = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
  });
});

describe('createMergePatch', () => {
  const cases: ReadonlyArray<{ name: string; original: unknown; modified: unknown; patch: unknown }> = [
    { name: 'equal documents', original: { a: 1, b: { c: [1] } }, modified: { a: 1, b: { c: [1] } }, patch: {} },
    { name: 'changed scalar', original: { a: 1 }, modified: { a: 2 }, patch: { a: 2 } },
    { name: 'removed member', original: { a: 1, b: 2 }, modified: { a: 1 }, patch: { b: null } },
    { name: 'added member', original: {}, modified: { a: { b: 1 } }, patch: { a: { b: 1 } } },
    { name: 'nested change', original: { m: { x: 1, y: 2 } }, modified: { m: { x: 1, y: 3, z: 4 } }, patch: { m: { y: 3, z: 4 } } },
    { name: 'nested removal', original: { m: { x: 1, y: 2 } }, modified: { m: { x: 1 } }, patch: { m: { y: null } } },
    { name: 'arrays are replaced whole', original: { l: [1, 2] }, modified: { l: [1, 2, 3] }, patch: { l: [1, 2, 3] } },
    { name: 'type change', original: { a: { b: 1 } }, modified: { a: 'x' }, patch: { a: 'x' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const patch = createMergePatch(c.original, c.modified);
      expect(patch).toEqual(c.patch);
      expect(applyMergePatch(c.original, patch)).toEqual(c.modified);
    });
  }
});
