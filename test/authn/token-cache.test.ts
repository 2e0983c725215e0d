/**
 * kube's cached token authenticator in front of the token steps (src/authn/token-cache.ts): hits
 * and misses, expiry by TTL on an injected clock, audiences in the key, failures never cached by
 * default, the size bound, shared lookups, and kube's consequence that a token of a just-deleted
 * ServiceAccount keeps working until its entry expires.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/authn/union.ts';
import { createServiceAccountTokenAuthenticator, ServiceAccountTokenIssuer, type LiveObject } from '../../src/authn/serviceaccount-token.ts';
import { cacheTokenUnion, type CachedTokenUnion, type TokenUnion, type TokenUnionAnswer } from '../../src/authn/token-cache.ts';
import type { TokenAuthenticator } from '../../src/authn/types.ts';

const API = ['https://kubernetes.default.svc.cluster.local'];

/** A union that knows the tokens of `users` and counts how often it is asked, per token and audiences. */
function countingUnion(users: Record<string, string>) {
  const calls: string[] = [];
  const union: TokenUnion = async (token, audiences) => {
    calls.push(`${token}|${audiences ? JSON.stringify(audiences) : '-'}`);
    const username = users[token];
    return username !== undefined
      ? { kind: 'authenticated', user: { username, groups: ['system:authenticated'], extra: {} } }
      : { kind: 'unauthenticated', rejections: [{ step: 'test', reason: 'unknown token' }] };
  };
  return { union, calls };
}

/** The answer for a token, whether the cache had it or asked the steps. */
async function ask(cache: CachedTokenUnion, token: string, audiences?: readonly string[]): Promise<TokenUnionAnswer> {
  return (await cache.lookup(token, audiences)).answer;
}

function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe('token cache', () => {
  it('answers a repeated token from the cache until the success TTL has passed', async () => {
    const { union, calls } = countingUnion({ good: 'alice' });
    const c = clock();
    const cached = cacheTokenUnion(union, { apiAudiences: API, successTtlMs: 10_000, failureTtlMs: 0, now: c.now });
    const first = await ask(cached, 'good');
    expect(first).toMatchObject({ kind: 'authenticated', user: { username: 'alice' } });
    c.t += 9_999;
    // A hit is the very answer cached: no new user object per request.
    expect(await ask(cached, 'good')).toBe(first);
    expect(calls).toEqual(['good|-']);
    c.t += 1;
    expect(await ask(cached, 'good')).toMatchObject({ kind: 'authenticated' });
    expect(calls).toEqual(['good|-', 'good|-']);
  });

  it('never caches failures by default (kube: failure TTL 0), and does for a failure TTL', async () => {
    const { union, calls } = countingUnion({});
    const uncached = cacheTokenUnion(union, { apiAudiences: API, successTtlMs: 10_000, failureTtlMs: 0 });
    await ask(uncached, 'bad');
    await ask(uncached, 'bad');
    expect(calls).toEqual(['bad|-', 'bad|-']);
    expect(uncached.size()).toBe(0);

    const c = clock();
    const failing = countingUnion({});
    const cached = cacheTokenUnion(failing.union, { apiAudiences: API, successTtlMs: 10_000, failureTtlMs: 2_000, now: c.now });
    expect(await ask(cached, 'bad')).toEqual({ kind: 'unauthenticated', rejections: [{ step: 'test', reason: 'unknown token' }] });
    c.t += 1_999;
    await ask(cached, 'bad');
    expect(failing.calls).toHaveLength(1);
    c.t += 1;
    await ask(cached, 'bad');
    expect(failing.calls).toHaveLength(2);
  });

  it('keys on the audiences: the request path shares entries with a review for --api-audiences only', async () => {
    const { union, calls } = countingUnion({ good: 'alice' });
    const cached = cacheTokenUnion(union, { apiAudiences: ['a', 'b'], successTtlMs: 10_000, failureTtlMs: 0 });
    await ask(cached, 'good');
    await ask(cached, 'good', ['a', 'b']);
    await ask(cached, 'good', ['ab']);
    await ask(cached, 'good', ['a']);
    await ask(cached, 'good', ['b', 'a']);
    await ask(cached, 'good', ['ab']);
    // ["a","b"] is the request path's key; ["ab"], ["a"], ["b","a"] are their own.
    expect(calls).toEqual(['good|-', 'good|["ab"]', 'good|["a"]', 'good|["b","a"]']);
  });

  it('holds at most maxEntries, dropping the oldest', async () => {
    const { union, calls } = countingUnion({ t1: 'a', t2: 'b', t3: 'c', t4: 'd' });
    const cached = cacheTokenUnion(union, { apiAudiences: API, successTtlMs: 10_000, failureTtlMs: 0, maxEntries: 3 });
    for (const token of ['t1', 't2', 't3', 't4']) await ask(cached, token);
    expect(cached.size()).toBe(3);
    await ask(cached, 't4');
    await ask(cached, 't2');
    expect(calls).toHaveLength(4);
    await ask(cached, 't1');
    expect(calls).toEqual(['t1|-', 't2|-', 't3|-', 't4|-', 't1|-']);
    expect(cached.size()).toBe(3);
  });

  it('sweeps expired entries as new ones arrive', async () => {
    const { union } = countingUnion({ t1: 'a', t2: 'b', t3: 'c' });
    const c = clock();
    const cached = cacheTokenUnion(union, { apiAudiences: API, successTtlMs: 1_000, failureTtlMs: 0, now: c.now });
    await ask(cached, 't1');
    await ask(cached, 't2');
    c.t += 1_000;
    await ask(cached, 't3');
    expect(cached.size()).toBe(1);
  });

  it('shares one lookup between identical requests in flight; a thrown lookup is not cached', async () => {
    const pending: ((a: TokenUnionAnswer) => void)[] = [];
    const slow: TokenUnion = () => new Promise((resolve) => pending.push(resolve));
    const cached = cacheTokenUnion(slow, { apiAudiences: API, successTtlMs: 10_000, failureTtlMs: 0 });
    const a = ask(cached, 'tok');
    const b = ask(cached, 'tok');
    const other = ask(cached, 'tok', ['x']);
    expect(pending).toHaveLength(2);
    for (const resolve of pending) resolve({ kind: 'authenticated', user: { username: 'u', groups: [], extra: {} } });
    expect(await a).toBe(await b);
    expect(await other).not.toBe(await a);

    let throws = 0;
    const broken = cacheTokenUnion(
      async () => {
        throws++;
        throw new Error('boom');
      },
      { apiAudiences: API, successTtlMs: 10_000, failureTtlMs: 0 },
    );
    await expect(ask(broken, 'tok')).rejects.toThrow('boom');
    await expect(ask(broken, 'tok')).rejects.toThrow('boom');
    expect(throws).toBe(2);
  });

  it('a TTL of 0 for both bypasses the cache', async () => {
    const { union, calls } = countingUnion({ good: 'alice' });
    const cached = cacheTokenUnion(union, { apiAudiences: API, successTtlMs: 0, failureTtlMs: 0 });
    await ask(cached, 'good');
    await ask(cached, 'good');
    expect(calls).toHaveLength(2);
  });
});

describe('token cache in the gate', () => {
  const key = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
  const sa = { name: 'builder', uid: 'sa-uid-1' };
  const token = new ServiceAccountTokenIssuer(API[0]!, key).issue({ namespace: 'ns1', serviceAccount: sa, audiences: API, expirationSeconds: 3600 }).token;
  const bearer = { headers: { authorization: `Bearer ${token}` }, peerAuthorized: false };

  function gate() {
    const objects = new Map<string, LiveObject>([['ns1/builder', { uid: sa.uid }]]);
    let lookups = 0;
    const c = clock(Date.now());
    const step = createServiceAccountTokenAuthenticator({
      issuers: API,
      audiences: API,
      keys: [createPublicKey(key)],
      getter: {
        serviceAccount: async (ns, name) => {
          lookups++;
          return objects.get(`${ns}/${name}`);
        },
        secret: async () => undefined,
      },
      now: c.now,
    });
    const authenticator = createAuthenticator({ anonymous: false, apiAudiences: API, tokenAuthenticators: [step], tokenCache: { now: c.now } });
    return { authenticator, objects, clock: c, lookups: () => lookups };
  }

  it('a token of a deleted ServiceAccount is accepted until its entry expires (10 s), as in kube', async () => {
    const g = gate();
    const ok = await g.authenticator.authenticate(bearer);
    expect(ok).toMatchObject({ ok: true, user: { username: 'system:serviceaccount:ns1:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] } });
    g.objects.delete('ns1/builder');
    g.clock.t += 9_000;
    expect(await g.authenticator.authenticate(bearer)).toMatchObject({ ok: true });
    expect(g.lookups()).toBe(1);
    // A review for other audiences is another key: the lookup runs and sees the deletion.
    expect(await g.authenticator.reviewToken(token, [...API, 'other'])).toEqual({ authenticated: false, error: '[invalid bearer token, serviceaccounts "builder" not found]' });
    // A review for the API's audiences shares the request path's entry.
    expect(await g.authenticator.reviewToken(token, API)).toMatchObject({ authenticated: true, audiences: API });
    g.clock.t += 1_000;
    const refused = await g.authenticator.authenticate(bearer);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? '' : refused.reason).toBe('bearer-token: service-account: serviceaccounts "builder" not found');
  });

  it('a connection that sends its token again is answered from the entry, never past the entry expiry', async () => {
    const g = gate();
    const connection = {};
    const onConnection = { ...bearer, connection };
    const first = await g.authenticator.authenticate(onConnection);
    expect(first.ok).toBe(true);
    // Synchronous on a hit: no promise for the request to wait for.
    const again = g.authenticator.authenticate(onConnection);
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toEqual(first);
    // Another header on the same connection is its own token: refused, not the remembered user.
    const other = await g.authenticator.authenticate({ headers: { authorization: 'Bearer someone-else' }, peerAuthorized: false, connection });
    expect(other.ok).toBe(false);
    g.objects.delete('ns1/builder');
    g.clock.t += 10_000;
    const expired = await g.authenticator.authenticate(onConnection);
    expect(expired.ok).toBe(false);
    expect(g.lookups()).toBe(2);
  });

  it('bad tokens reach the steps every time', async () => {
    let asked = 0;
    const step: TokenAuthenticator = {
      name: 'counting',
      authenticateToken: async () => {
        asked++;
        return { kind: 'rejected', reason: 'no' };
      },
    };
    const authenticator = createAuthenticator({ anonymous: true, apiAudiences: API, tokenAuthenticators: [step] });
    const req = { headers: { authorization: 'Bearer nope' }, peerAuthorized: false };
    for (let i = 0; i < 3; i++) expect((await authenticator.authenticate(req)).ok).toBe(false);
    expect(asked).toBe(3);
  });
});
