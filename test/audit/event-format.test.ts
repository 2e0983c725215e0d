/** Go's MicroTime as the audit events write it: always six fractional digits, UTC. */
import { describe, expect, it } from 'vitest';
import { isStatusBody, jsonText, microTime, userJson } from '../../src/audit/index.ts';
import { withAuthenticatedGroup } from '../../src/authn/index.ts';

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

/** The user's JSON, made once per user object (authenticators hand a caller's requests one object). */
describe('userJson', () => {
  it('writes kube\'s UserInfo fields in Go order, HTML-safe, each user object its own text', () => {
    const admin = { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'], extra: {} };
    expect(userJson(admin)).toBe('{"username":"admin","uid":"admin","groups":["system:masters","system:authenticated"]}');
    expect(userJson({ ...admin, groups: [...admin.groups] })).toBe(userJson(admin));
    expect(userJson({ ...admin, groups: ['system:authenticated'] })).toBe('{"username":"admin","uid":"admin","groups":["system:authenticated"]}');
    expect(userJson({ username: 'admin', groups: ['system:authenticated'], extra: {} })).toBe('{"username":"admin","groups":["system:authenticated"]}');
    expect(userJson({ ...admin, extra: { scopes: ['a<b&c>'] } })).toBe('{"username":"admin","uid":"admin","groups":["system:masters","system:authenticated"],"extra":{"scopes":["a\\u003cb\\u0026c\\u003e"]}}');
    expect(userJson({ username: '', groups: [], extra: {} })).toBe('{}');
    expect(userJson(undefined)).toBe('{}');
  });
});

/** Each value of an event is quoted as Go's HTML-safe encoding writes it; most need no escape at all. */
describe('jsonText', () => {
  it('quotes plain values as they are and escapes the rest as Go does', () => {
    expect(jsonText('/api/v1/namespaces/bench/configmaps?limit=500')).toBe('"/api/v1/namespaces/bench/configmaps?limit=500"');
    expect(jsonText('')).toBe('""');
    expect(jsonText('kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd')).toBe('"kubectl/v1.32.4 (linux/amd64) kubernetes/59526cd"');
    expect(jsonText('a&b')).toBe('"a\\u0026b"');
    expect(jsonText('<x>')).toBe('"\\u003cx\\u003e"');
    expect(jsonText('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
    expect(jsonText('tab\there\n')).toBe('"tab\\there\\n"');
    expect(jsonText('\u2028\u2029')).toBe('"\\u2028\\u2029"');
    expect(jsonText('ünïcødé ✓')).toBe('"ünïcødé ✓"');
    // Every string, plain or not, comes out as JSON.stringify's text made HTML-safe.
    const odd = ['\u0000', '\u001f', '\u007f', '\ud83d\ude00', '\ud800', 'x\udfff', '&&', '>', '\\', '"', 'é<'];
    for (const s of odd) {
      const go = JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      expect(jsonText(s)).toBe(go);
      expect(JSON.parse(jsonText(s))).toBe(s);
    }
  });
});

describe('withAuthenticatedGroup', () => {
  it('adds system:authenticated once per user object, so a cached answer keeps one user object', () => {
    const cached = { username: 'alice', groups: ['dev'], extra: {} };
    const first = withAuthenticatedGroup(cached);
    expect(first.groups).toEqual(['dev', 'system:authenticated']);
    expect(withAuthenticatedGroup(cached)).toBe(first);
    expect(cached.groups).toEqual(['dev']);
    // Another object with the same fields is another caller's answer: its own result.
    expect(withAuthenticatedGroup({ ...cached })).not.toBe(first);
    const already = { username: 'bob', groups: ['system:authenticated'], extra: {} };
    expect(withAuthenticatedGroup(already)).toBe(already);
  });
});

describe('isStatusBody', () => {
  it('tells a Status body (whose fields the event\'s responseStatus shows) from any other answer', () => {
    const status = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success"}';
    expect(isStatusBody(status)).toBe(true);
    expect(isStatusBody(Buffer.from(status))).toBe(true);
    // A backend's pretty-printed Status.
    expect(isStatusBody('{\n  "kind": "Status",\n  "apiVersion": "v1"}')).toBe(true);
    expect(isStatusBody(Buffer.from('{\n  "kind": "Status",\n  "apiVersion": "v1"}'))).toBe(true);
    expect(isStatusBody('{"kind":"ConfigMap","apiVersion":"v1"}')).toBe(false);
    expect(isStatusBody(Buffer.from('{"kind":"StatusList"}'))).toBe(false);
    expect(isStatusBody(Buffer.from('{"kind":"S'))).toBe(false);
    expect(isStatusBody(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a]))).toBe(false);
    expect(isStatusBody(undefined)).toBe(false);
  });
});
