/**
 * Upgrades through the proxy (exec/attach/port-forward style): a small real TLS extension server
 * started here accepts `Connection: Upgrade` for SPDY/3.1 and WebSocket (v5.channel.k8s.io) on a
 * subresource and echoes every byte. The gateway authenticates and authorizes first (the verb
 * request info computes for the subresource: `create` for POST, `get` for a GET WebSocket), passes
 * the identity in the request headers, strips the client's credentials, and pipes both ways.
 */
import { createHash } from 'node:crypto';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startAggregatedSetup, waitForAvailable, type AggregatedSetup } from './sample-fixture.ts';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certs.ts';

let s: AggregatedSetup;
let backend: https.Server;
const upgrades: { method: string; url: string; headers: IncomingMessage['headers']; peerCn: string }[] = [];
const sockets: Duplex[] = [];

const resourceList = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'shell.example.com/v1', resources: [{ name: 'boxes', singularName: 'box', namespaced: true, kind: 'Box', verbs: ['get', 'list'] }, { name: 'boxes/exec', singularName: '', namespaced: true, kind: 'BoxExecOptions', verbs: ['create', 'get'] }] };

beforeAll(async () => {
  s = await startAggregatedSetup({ probeIntervalMs: 1000 });
  const ca = await createCertificateAuthority('shell-ca');
  const serving = await issueServingCertificate({ caCert: ca.cert, caKey: ca.key }, { dnsNames: ['shell.default.svc'], ips: [] });
  backend = https.createServer({ cert: serving.cert, key: serving.key, ca: s.frontProxyCa.cert, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/apis/shell.example.com/v1') return res.end(JSON.stringify(resourceList));
    if (req.url === '/apis') return res.end(JSON.stringify({ kind: 'APIGroupList', apiVersion: 'v1', groups: [] }));
    res.statusCode = 404;
    res.end('{}');
  });
  backend.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const peer = (req.socket as tls.TLSSocket).getPeerCertificate();
    upgrades.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, peerCn: String(peer?.subject?.CN ?? '') });
    sockets.push(socket);
    if (req.url?.includes('/refuse')) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 18\r\n\r\n{"refused":"yes"}\n');
      return;
    }
    const proto = String(req.headers.upgrade ?? '').toLowerCase();
    const head101 = ['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade'];
    if (proto === 'websocket') {
      const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      head101.push('Upgrade: websocket', `Sec-WebSocket-Accept: ${accept}`, 'Sec-WebSocket-Protocol: v5.channel.k8s.io');
    } else {
      head101.push('Upgrade: SPDY/3.1', 'X-Stream-Protocol-Version: v4.channel.k8s.io');
    }
    socket.write(`${head101.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) socket.write(head);
    socket.pipe(socket);
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((r) => backend.listen(0, '127.0.0.1', () => r()));
  s.resolver.set('default', 'shell', '127.0.0.1', (backend.address() as AddressInfo).port);
  const res = await s.gw.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    body: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.shell.example.com' },
      spec: { group: 'shell.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, caBundle: Buffer.from(ca.cert).toString('base64'), service: { namespace: 'default', name: 'shell' } },
    },
  });
  expect(res.status).toBe(201);
  await waitForAvailable(s.gw, 'v1.shell.example.com', 'True', 15_000);
}, 120_000);

afterAll(async () => {
  for (const so of sockets) so.destroy();
  backend?.closeAllConnections();
  await new Promise((r) => backend?.close(r));
  await s?.close();
});

const EXEC = '/apis/shell.example.com/v1/namespaces/default/boxes/b1/exec?command=sh&stdin=true';

/** A raw upgrade exchange with the gateway as admin (optionally impersonating): the response head, then an echo round trip of `payload`. */
function upgrade(method: string, path: string, headers: Record<string, string>, payload: string): Promise<{ head: string; echoed: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(s.gw.server.url);
    const sock = tls.connect({ host: url.hostname, port: Number(url.port), ca: s.gw.server.caCert, cert: s.gw.server.adminCert, key: s.gw.server.adminKey, ALPNProtocols: ['http/1.1'], servername: 'localhost' });
    sockets.push(sock);
    let buf = Buffer.alloc(0);
    let head: string | undefined;
    const timer = setTimeout(() => reject(new Error(`no answer: ${buf.toString()}`)), 20_000);
    sock.once('secureConnect', () => {
      const lines = [`${method} ${path} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
      sock.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    sock.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (head === undefined) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        head = buf.subarray(0, end).toString();
        buf = buf.subarray(end + 4);
        if (!head.startsWith('HTTP/1.1 101')) {
          // Not upgraded: the rest is a normal response body; wait for the connection to close.
          sock.once('end', () => {
            clearTimeout(timer);
            resolve({ head: head!, echoed: buf.toString() });
          });
          return;
        }
        // Both directions: bytes written after the upgrade come back through the backend.
        sock.write(payload);
      }
      if (head.startsWith('HTTP/1.1 101') && buf.length >= payload.length) {
        clearTimeout(timer);
        sock.end();
        resolve({ head, echoed: buf.toString() });
      }
    });
    sock.on('error', reject);
  });
}

test('SPDY/3.1 exec-style upgrade: 101 relayed, bytes piped both ways, identity asserted, credentials stripped', async () => {
  upgrades.length = 0;
  const r = await upgrade('POST', EXEC, { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io', Authorization: 'Bearer must-not-leak', 'X-Remote-User': 'mallory', 'Content-Length': '0' }, 'echo over spdy\n');
  expect(r.head).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
  expect(r.head).toMatch(/\r\nUpgrade: SPDY\/3\.1/i);
  expect(r.head).toMatch(/\r\nX-Stream-Protocol-Version: v4\.channel\.k8s\.io/i);
  expect(r.echoed).toBe('echo over spdy\n');
  expect(upgrades).toHaveLength(1);
  const h = upgrades[0]!.headers;
  expect(upgrades[0]!.method).toBe('POST');
  expect(upgrades[0]!.url).toBe(EXEC);
  expect(upgrades[0]!.peerCn).toBe('front-proxy-client');
  expect(h['x-remote-user']).toBe('admin');
  expect(h.authorization).toBeUndefined();
  expect(h.upgrade).toBe('SPDY/3.1');
  expect(h['x-stream-protocol-version']).toBe('v4.channel.k8s.io');
});

test('WebSocket (v5.channel.k8s.io) upgrade is piped as well', async () => {
  upgrades.length = 0;
  const key = Buffer.from('0123456789abcdef').toString('base64');
  const r = await upgrade('GET', EXEC, { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': key, 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' }, '\x81\x05hello');
  expect(r.head).toMatch(/^HTTP\/1\.1 101/);
  expect(r.head).toContain(`Sec-WebSocket-Accept: ${createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')}`);
  expect(r.head).toContain('Sec-WebSocket-Protocol: v5.channel.k8s.io');
  expect(r.echoed).toBe('\x81\x05hello');
  expect(upgrades[0]!.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io');
});

test('authorization comes first: create on the subresource for POST; refused users never reach the backend', async () => {
  upgrades.length = 0;
  const spdy = { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'Content-Length': '0', 'Impersonate-User': 'jane' };
  const denied = await upgrade('POST', EXEC, spdy, 'x');
  expect(denied.head).toMatch(/^HTTP\/1\.1 403/);
  expect(denied.echoed).toContain('boxes.shell.example.com \\"b1\\" is forbidden: User \\"jane\\" cannot create resource \\"boxes/exec\\" in API group \\"shell.example.com\\" in the namespace \\"default\\"');
  expect(upgrades).toHaveLength(0);
  const role = await s.gw.kubectl(['create', 'role', 'box-exec', '-n', 'default', '--verb=create', '--resource=boxes.shell.example.com/exec']);
  expect(role.code).toBe(0);
  expect((await s.gw.kubectl(['create', 'rolebinding', 'jane-exec', '-n', 'default', '--role=box-exec', '--user=jane'])).code).toBe(0);
  let allowed = { head: '', echoed: '' };
  for (let i = 0; i < 40 && !allowed.head.startsWith('HTTP/1.1 101'); i++) {
    allowed = await upgrade('POST', EXEC, spdy, 'as jane');
    if (!allowed.head.startsWith('HTTP/1.1 101')) await new Promise((r) => setTimeout(r, 250));
  }
  expect(allowed.head).toMatch(/^HTTP\/1\.1 101/);
  expect(allowed.echoed).toBe('as jane');
  const last = upgrades.at(-1)!;
  expect(last.headers['x-remote-user']).toBe('jane');
  expect(last.headers['impersonate-user']).toBeUndefined();
  // A GET WebSocket is `get` on the subresource (request info's verb), which jane was not granted.
  const ws = await upgrade('GET', EXEC, { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'AAAAAAAAAAAAAAAAAAAAAA==', 'Impersonate-User': 'jane' }, 'x');
  expect(ws.head).toMatch(/^HTTP\/1\.1 403/);
});

test('a backend that declines the upgrade: its answer is relayed; a local route answers normally', async () => {
  const r = await upgrade('POST', '/apis/shell.example.com/v1/namespaces/default/boxes/refuse/exec', { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'Content-Length': '0' }, 'x');
  expect(r.head).toMatch(/^HTTP\/1\.1 400/);
  expect(r.echoed).toBe('{"refused":"yes"}\n');
  // An upgrade request to a route that never upgrades gets its ordinary answer (kube does the same).
  const local = await upgrade('GET', '/api/v1/namespaces/default', { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'AAAAAAAAAAAAAAAAAAAAAA==' }, 'x');
  expect(local.head).toMatch(/^HTTP\/1\.1 200/);
  expect(JSON.parse(local.echoed.replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, ''))).toMatchObject({ kind: 'Namespace' });
  // The gateway keeps serving.
  expect((await s.gw.request('GET', '/api/v1/namespaces/default')).status).toBe(200);
});
