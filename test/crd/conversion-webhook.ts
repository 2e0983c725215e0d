/**
 * Test fixture: a CRD conversion webhook over TLS on loopback. Versions v1 and v2 of group
 * `convh.example.com` differ in one field: v1 has `spec.size` (integer), v2 `spec.dimensions.size`.
 * The request path picks a behaviour: /convert converts (ConversionReview v1 or v1beta1, answered
 * in the version asked), /fail answers 500, /garbage answers bytes that are not JSON, /failure
 * answers result Failure with a message, /wrong-count drops the last object, /bad-uid answers
 * another uid, /change-name renames the objects, /close drops the connection. Every review is
 * recorded (it also serves the shared reference for comparisons). Its certificate also names
 * `hook.default.svc`, for a CRD that references it as a Service.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certs.ts';

type Obj = Record<string, any>;

export interface ConversionWebhook {
  readonly port: number;
  readonly caBundle: string;
  /** Every review received, with the path it came to. */
  readonly received: { path: string; review: Obj }[];
  url(path: string): string;
  close(): Promise<void>;
}

/** v1 <-> v2 of the fixture's kind; other fields pass through. */
export function convertObject(obj: Obj, desired: string): Obj {
  const out = structuredClone(obj);
  const to = desired.split('/')[1];
  const from = String(obj.apiVersion).split('/')[1];
  out.apiVersion = desired;
  if (from === to || !out.spec) return out;
  if (to === 'v2') {
    if (out.spec.size !== undefined) out.spec.dimensions = { size: out.spec.size };
    delete out.spec.size;
  } else {
    if (out.spec.dimensions?.size !== undefined) out.spec.size = out.spec.dimensions.size;
    delete out.spec.dimensions;
  }
  return out;
}

export async function startConversionWebhook(): Promise<ConversionWebhook> {
  const caPair = await createCertificateAuthority('conversion-test-ca');
  const serving = await issueServingCertificate({ caCert: caPair.cert, caKey: caPair.key }, { dnsNames: ['localhost', 'hook.default.svc'], ips: ['127.0.0.1'] });
  const received: ConversionWebhook['received'] = [];
  const server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      let review: Obj;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj;
      } catch {
        res.writeHead(400).end();
        return;
      }
      received.push({ path, review });
      const request = review.request as Obj;
      const send = (response: Obj) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }));
      };
      const converted = () => (request.objects as Obj[]).map((o) => convertObject(o, request.desiredAPIVersion));
      switch (path) {
        case '/convert':
          return send({ uid: request.uid, convertedObjects: converted(), result: { status: 'Success' } });
        case '/fail':
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('internal trouble');
          return;
        case '/garbage':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"this is": not json');
          return;
        case '/failure':
          return send({ uid: request.uid, result: { status: 'Failure', message: 'cannot convert today' } });
        case '/wrong-count':
          return send({ uid: request.uid, convertedObjects: converted().slice(0, -1), result: { status: 'Success' } });
        case '/bad-uid':
          return send({ uid: 'not-the-uid', convertedObjects: converted(), result: { status: 'Success' } });
        case '/change-name':
          return send({ uid: request.uid, convertedObjects: converted().map((o) => ({ ...o, metadata: { ...o.metadata, name: `${o.metadata.name}-x` } })), result: { status: 'Success' } });
        case '/close':
          req.socket.destroy();
          return;
        default:
          res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: Buffer.from(caPair.cert).toString('base64'),
    received,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The fixture's CRD, converting through `url`; v1 is the storage version unless `storage` says otherwise. */
export function conversionCrd(url: string, caBundle: string, storage: 'v1' | 'v2' = 'v1', reviewVersions: string[] = ['v1']): Obj {
  const schema = (spec: Obj) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.convh.example.com' },
    spec: {
      group: 'convh.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        { name: 'v1', served: true, storage: storage === 'v1', schema: schema({ size: { type: 'integer' }, color: { type: 'string', default: 'grey' } }) },
        { name: 'v2', served: true, storage: storage === 'v2', schema: schema({ dimensions: { type: 'object', properties: { size: { type: 'integer' } } }, color: { type: 'string' } }) },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: reviewVersions, clientConfig: { url, caBundle } } },
    },
  };
}
