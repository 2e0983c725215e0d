/** Go's MicroTime as the audit events write it: always six fractional digits, UTC. */
import { describe, expect, it } from 'vitest';
import { microTime, userJson } from '../../src/audit/index.ts';

describe('microTime', () => {
  it('writes RFC 3339 with microseconds, across second boundaries', () => {
    const t = Date.UTC(2026, 10, 28, 4, 3, 36, 277) + 0.391;
    expect(microTime(t)).toBe('2026-11-28T04:03:36.277391Z');
    expect(microTime(t + 0.5)).toBe('2026-11-28T04:03:36.277891Z');
    expect(microTime(Date.UTC(2026, 10, 28, 4, 3, 37, 5))).toBe('2026-11-28T04:03:37.005000Z');
    expect(microTime(Date.UTC(2026, 10, 28, 4, 3, 36, 0))).toBe('2026-11-28T04:03:36.000000Z');
    expect(microTime(Date.UTC(2026, 10, 28, 4, 3, 36, 999) + 0.999)).toBe('2026-11-28T04:03:36.999999Z');
  });
});

/** The user's JSON is reused per user name: only while what it shows is the same. */
describe('userJson', () => {
  it('writes kube\'s UserInfo fields, and a same-named user with other groups, uid or extra gets its own text', () => {
    const admin = { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'], extra: {} };
    expect(userJson(admin)).toBe('{"username":"admin","uid":"admin","groups":["system:masters","system:authenticated"]}');
    // A new object with the same fields (a certificate's user on the next request): the same text.
    expect(userJson({ ...admin, groups: [...admin.groups] })).toBe(userJson(admin));
    expect(userJson({ ...admin, groups: ['system:authenticated'] })).toBe('{"username":"admin","uid":"admin","groups":["system:authenticated"]}');
    expect(userJson({ username: 'admin', groups: ['system:authenticated'], extra: {} })).toBe('{"username":"admin","groups":["system:authenticated"]}');
    expect(userJson({ ...admin, extra: { scopes: ['a<b'] } })).toBe('{"username":"admin","uid":"admin","groups":["system:masters","system:authenticated"],"extra":{"scopes":["a<b"]}}');
    expect(userJson({ username: '', groups: [], extra: {} })).toBe('{}');
    expect(userJson(undefined)).toBe('{}');
  });
});
