/**
 * Test fixture: an admission webhook server over TLS on loopback whose behaviour is chosen by the
 * request path (/allow, /deny, /mutate, /mutate-dimensions, /mutate-replicas, /warn, /slow, /garbage, /close, /baduid, /badpatch,
 * /flaky, /v1beta1). It records every AdmissionReview it receives.
 */
import https from 'node:https';
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certs.ts';
import type { Response } from '../server/harness.ts';

export interface ReceivedReview {
  readonly path: string;
  /** `2.0` over HTTP/2, `1.1` otherwise. */
  readonly httpVersion: string;
  readonly review: { apiVersion: string; kind: string; request: Record<string, any> };
}

export interface WebhookServer {
  readonly port: number;
  readonly caBundle: string;
  readonly received: ReceivedReview[];
  /** /flaky answers allowed when true, closes the connection when false. */
  healthy: boolean;
  /** TLS connections accepted so far (an HTTP/2 client multiplexes its calls over one). */
  readonly connections: number;
  url(path: string): string;
  close(): Promise<void>;
}

const patchOf = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString('base64');

/**
 * With `clientCa`, client certificates are asked for; /whoami denies with the presented certificate's CN.
 * With `http2`, the server offers HTTP/2 in ALPN (and still answers HTTP/1.1 clients).
 */
export async function startWebhookServer(dnsNames: string[] = [], clientCa?: string, opts: { http2?: boolean } = {}): Promise<WebhookServer> {
  const caPair = await createCertificateAuthority('webhook-test-ca');
  const serving = await issueServingCertificate({ caCert: caPair.cert, caKey: caPair.key }, { dnsNames: ['localhost', ...dnsNames], ips: ['127.0.0.1'] });
  const received: ReceivedReview[] = [];
  const state = { healthy: true };
  const tlsOptions = { cert: serving.cert, key: serving.key, ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: false } : {}) };
  const handler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      let review: ReceivedReview['review'];
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      received.push({ path, httpVersion: req.httpVersion, review });
      const uid = review.request.uid;
      const reply = (response: Record<string, unknown>, apiVersion = 'admission.k8s.io/v1') => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion, kind: 'AdmissionReview', response: { uid, ...response } }));
      };
      const labelPatch = (key: string) => {
        const labels = review.request.object?.metadata?.labels;
        return labels ? [{ op: 'add', path: `/metadata/labels/${key}`, value: 'yes' }] : [{ op: 'add', path: '/metadata/labels', value: { [key]: 'yes' } }];
      };
      switch (path) {
        case '/allow':
          return reply({ allowed: true });
        case '/deny':
          return reply({ allowed: false, status: { code: 403, message: 'configmaps named deny-me are not welcome', reason: 'Forbidden' } });
        case '/mutate':
          return reply({ allowed: true, patchType: 'JSONPatch', patch: patchOf(labelPatch('mutated')), warnings: ['the object was labelled mutated=yes'], auditAnnotations: { touched: 'true' } });
        case '/mutate-unknown':
          return reply({ allowed: true, patchType: 'JSONPatch', patch: patchOf([...labelPatch('mutated'), { op: 'add', path: '/notAField', value: 1 }]) });
        case '/mutate-dimensions':
          // Written for the v2 shape of test/crd/conversion-webhook.ts's Widget.
          return reply({ allowed: true, patchType: 'JSONPatch', patch: patchOf([{ op: 'add', path: '/spec/dimensions', value: { size: 7 } }]) });
        case '/mutate-replicas':
          // For a Scale (a custom resource's scale subresource): replicas set to 3.
          return reply({ allowed: true, patchType: 'JSONPatch', patch: patchOf([{ op: 'replace', path: '/spec/replicas', value: 3 }]), warnings: ['replicas capped at 3'] });
        case '/mutate-b':
          return reply({ allowed: true, patchType: 'JSONPatch', patch: patchOf(labelPatch('second')) });
        case '/warn':
          return reply({ allowed: true, warnings: ['careful: this is only a test'] });
        case '/slow':
          setTimeout(() => reply({ allowed: true }), 2500);
          return;
        case '/garbage':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"this is": not json');
          return;
        case '/close':
          req.socket.destroy();
          return;
        case '/baduid':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'not-the-uid', allowed: true } }));
          return;
        case '/badpatch':
          return reply({ allowed: true, patchType: 'JSONPatch', patch: patchOf([{ op: 'remove', path: '/no/such/field' }]) });
        case '/flaky':
          if (state.healthy) return reply({ allowed: true });
          req.socket.destroy();
          return;
        case '/whoami': {
          const peer = (req.socket as import('node:tls').TLSSocket).getPeerCertificate?.();
          const authorized = (req.socket as import('node:tls').TLSSocket).authorized;
          return reply({ allowed: false, status: { code: 403, message: `cn=${authorized && peer?.subject?.CN ? peer.subject.CN : 'none'}` } });
        }
        case '/v1beta1':
          return reply({ allowed: true }, 'admission.k8s.io/v1beta1');
        default:
          res.writeHead(404).end();
      }
    });
  };
  const server = opts.http2
    ? http2.createSecureServer({ ...tlsOptions, allowHTTP1: true }, handler as never)
    : https.createServer(tlsOptions, handler);
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on('secureConnection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: Buffer.from(caPair.cert).toString('base64'),
    received,
    get healthy() {
      return state.healthy;
    },
    set healthy(v: boolean) {
      state.healthy = v;
    },
    get connections() {
      return connections;
    },
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/**
 * Webhook and policy configurations (and Services) reach admission through watch caches: sends
 * the request again until it is answered as expected, or 10 s have passed (the last answer is returned).
 */
export async function until(send: () => Promise<Response>, ok: (r: Response) => boolean): Promise<Response> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await send();
    if (ok(r) || Date.now() > deadline) return r;
    await new Promise((res) => setTimeout(res, 50));
  }
}
