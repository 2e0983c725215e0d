/**
 * The webhook of the admission benchmark, in its own process so it competes with neither the load
 * nor the server. It offers HTTP/2 (as webhooks built on Go's net/http do) unless BENCH_WEBHOOK_HTTP1 is set.
 */
import https from 'node:https';
import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServingCertificate } from '../src/server/certs.ts';

const ca = await createCertificateAuthority('bench-webhook-ca');
const serving = await issueServingCertificate({ caCert: ca.cert, caKey: ca.key }, { dnsNames: ['localhost'], ips: ['127.0.0.1'] });
const handler = (req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const uid = (JSON.parse(Buffer.concat(chunks).toString()) as { request: { uid: string } }).request.uid;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));
  });
};
const server = process.env.BENCH_WEBHOOK_HTTP1
  ? https.createServer({ cert: serving.cert, key: serving.key, keepAliveTimeout: 60_000 }, handler)
  : http2.createSecureServer({ cert: serving.cert, key: serving.key, allowHTTP1: true }, handler as never);
server.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port, caBundle: Buffer.from(ca.cert).toString('base64') });
});
process.on('message', (m: { type: string }) => {
  if (m.type === 'stop') server.close(() => process.exit(0));
  if (m.type === 'cpu') {
    const u = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: u.user + u.system });
  }
});
