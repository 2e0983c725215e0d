/**
 * Admission webhook calls over HTTP/2 where the webhook offers it (ALPN), HTTP/1.1 otherwise, with
 * the pool's semantics: calls share one connection, a session the webhook dropped is replaced,
 * timeouts and dial failures keep Go's wording.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallError, WebhookClient, type WebhookEndpoint } from '../../src/admission/webhook/client.ts';
import { isLoopbackHost, webhookTarget } from '../../src/admission/webhook/target.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { startWebhookServer, type WebhookServer } from './webhook-server.ts';

let h2: WebhookServer;
let h1: WebhookServer;
let client: WebhookClient;

const endpoint = (wh: WebhookServer, path: string, port = wh.port): WebhookEndpoint => ({
  url: `https://127.0.0.1:${port}${path}?timeout=10s`,
  dialHost: '127.0.0.1',
  dialPort: port,
  serverName: '127.0.0.1',
  path: `${path}?timeout=10s`,
  ca: Buffer.from(wh.caBundle, 'base64').toString(),
  http2Allowed: true,
});

const review = (uid: string) => Buffer.from(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid, object: { metadata: {} } } }));

beforeAll(async () => {
  h2 = await startWebhookServer([], undefined, { http2: true });
  h1 = await startWebhookServer();
  client = new WebhookClient();
});

afterAll(async () => {
  client?.close();
  await h2?.close();
  await h1?.close();
});

describe('webhook client protocols', () => {
  it('speaks HTTP/2 to a webhook that offers it, all concurrent calls over one connection', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => client.post(endpoint(h2, '/allow'), review(`u${i}`), 5000)));
    for (const [i, r] of results.entries()) {
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body.toString()).response).toEqual({ uid: `u${i}`, allowed: true });
    }
    expect(h2.received.filter((x) => x.path === '/allow').map((x) => x.httpVersion)).toEqual(Array(20).fill('2.0'));
    expect(h2.connections).toBe(1);
    // Later calls reuse the warm session.
    await client.post(endpoint(h2, '/allow'), review('again'), 5000);
    expect(h2.connections).toBe(1);
  });

  it('speaks HTTP/1.1 to a webhook that does not offer HTTP/2, over kept-alive connections', async () => {
    for (let i = 0; i < 5; i++) expect((await client.post(endpoint(h1, '/allow'), review(`h1-${i}`), 5000)).status).toBe(200);
    expect(h1.received.map((x) => x.httpVersion)).toEqual(Array(5).fill('1.1'));
    // At most the handshake that learnt the protocol (the server may not see it complete), then one pooled connection for the sequential calls.
    expect(h1.connections).toBeGreaterThanOrEqual(1);
    expect(h1.connections).toBeLessThanOrEqual(2);
  });

  it('speaks HTTP/1.1 to an endpoint kube keeps on HTTP/1.1 (not a loopback URL), even when the webhook offers HTTP/2', async () => {
    const connections = h2.connections;
    const { http2Allowed: _, ...notLoopback } = endpoint(h2, '/allow');
    expect((await client.post(notLoopback, review('h1-only'), 5000)).status).toBe(200);
    expect(h2.received.at(-1)?.httpVersion).toBe('1.1');
    expect(h2.connections).toBe(connections + 1);
  });

  it('allows HTTP/2 only for URL webhooks on a loopback host, as kube\'s webhook client', () => {
    const allowed = (clientConfig: unknown) => {
      const t = webhookTarget(clientConfig, 10);
      if (typeof t === 'string') throw new Error(t);
      return t.endpoint.http2Allowed;
    };
    for (const url of ['https://127.0.0.1:8443/x', 'https://127.5.0.1/x', 'https://LocalHost:9443/', 'https://[::1]:8443/x', 'https://[::ffff:127.0.0.1]/x']) expect(allowed({ url }), url).toBe(true);
    for (const url of ['https://10.0.0.1/x', 'https://hook.example.com/x', 'https://[::2]/x', 'https://localhost.example.com/']) expect(allowed({ url }), url).toBe(false);
    expect(allowed({ service: { namespace: 'n', name: 'localhost' } })).toBe(false);
    expect(isLoopbackHost('0:0:0:0:0:0:0:1')).toBe(true);
  });

  it('replaces a session the webhook closed: the next call succeeds on a new connection', async () => {
    const before = h2.connections;
    const deny = await client.post(endpoint(h2, '/close'), review('closing'), 5000).catch((e: unknown) => e);
    expect(deny).toBeInstanceOf(CallError);
    const r = await client.post(endpoint(h2, '/allow'), review('after-close'), 5000);
    expect(r.status).toBe(200);
    expect(h2.connections).toBeGreaterThan(before);
  });

  it('times out a slow HTTP/2 call with Go\'s wording and keeps the session for others', async () => {
    const err = (await client.post(endpoint(h2, '/slow'), review('slow'), 200).catch((e: unknown) => e)) as CallError;
    expect(err).toBeInstanceOf(CallError);
    expect(err.timeout).toBe(true);
    expect(err.message).toMatch(/^Post "https:\/\/127\.0\.0\.1:\d+\/slow\?timeout=10s": context deadline exceeded$/);
    const connections = h2.connections;
    expect((await client.post(endpoint(h2, '/allow'), review('after-slow'), 5000)).status).toBe(200);
    expect(h2.connections).toBe(connections);
  });

  it('reports a refused connection as Go\'s dialer does', async () => {
    const err = (await client.post(endpoint(h2, '/allow', 1), review('refused'), 2000).catch((e: unknown) => e)) as CallError;
    expect(err).toBeInstanceOf(CallError);
    expect(err.message).toBe('Post "https://127.0.0.1:1/allow?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused');
  });
});

describe('through the server', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer();
  });
  afterAll(async () => {
    await ts?.close();
  });

  it('a validating webhook that offers HTTP/2 is called over HTTP/2 and its denial is kube\'s', async () => {
    const res = await ts.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: {
        metadata: { name: 'h2' },
        webhooks: [
          {
            name: 'h2.example.com',
            clientConfig: { url: h2.url('/deny'), caBundle: h2.caBundle },
            rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            objectSelector: { matchLabels: { h2: 'yes' } },
          },
        ],
      },
    });
    expect(res.status).toBe(201);
    const deadline = Date.now() + 10_000;
    let r;
    do {
      r = await ts.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `h2-${Date.now()}`, labels: { h2: 'yes' } } } });
      if (r.status === 403) break;
      await new Promise((ok) => setTimeout(ok, 50));
    } while (Date.now() < deadline);
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('admission webhook "h2.example.com" denied the request: configmaps named deny-me are not welcome');
    expect(h2.received.filter((x) => x.path === '/deny').every((x) => x.httpVersion === '2.0')).toBe(true);
  });
});
