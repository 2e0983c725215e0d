/**
 * Test fixture: a small real HTTP/2 TLS extension server on loopback, registered behind the
 * gateway of an AggregatedSetup as the APIService `v1.<group>`. It answers its discovery document
 * itself and hands every resource request (`/apis/<group>/v1/namespaces/...`) to the test, which
 * can answer, hold, refuse or cut it; it counts what reached it and the connections it accepted.
 */
import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { waitForAvailable, type AggregatedSetup } from './sample-fixture.ts';
import { createCertificateAuthority, issueServingCertificate } from '../../src/server/certs.ts';

export interface H2Backend {
  readonly group: string;
  /** Resource requests that reached the backend, as `METHOD path`. */
  readonly seen: string[];
  /** TLS connections the backend accepted, in order. */
  readonly connections: Socket[];
  /** Called for each resource request once its body arrived. */
  onResource: (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer) => void;
  /** Cuts the TCP connection under `stream` without GOAWAY (a backend that died). */
  cutConnection(stream: ServerHttp2Stream): void;
  close(): Promise<void>;
}

/** Answers `body` as JSON with its length declared. */
export function answerJson(stream: ServerHttp2Stream, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  stream.respond({ ':status': status, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  stream.end(text);
}

export async function startH2Backend(s: AggregatedSetup, name: string): Promise<H2Backend> {
  const group = `${name}.example.com`;
  const ca = await createCertificateAuthority(`${name}-ca`);
  const serving = await issueServingCertificate({ caCert: ca.cert, caKey: ca.key }, { dnsNames: [`${name}.default.svc`], ips: [] });
  const server = http2.createSecureServer({ cert: serving.cert, key: serving.key });
  const resourceList = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`, resources: [{ name: 'things', singularName: 'thing', namespaced: true, kind: 'Thing', verbs: ['get', 'list', 'create', 'watch'] }] };
  const backend: H2Backend = {
    group,
    seen: [],
    connections: [],
    onResource: (stream) => answerJson(stream, 200, { kind: 'Thing' }),
    cutConnection(stream) {
      // The session's socket may not be touched through HTTP/2; its port finds the raw one.
      const port = stream.session?.socket.remotePort;
      for (const c of backend.connections) if (c.remotePort === port) c.destroy();
    },
    async close() {
      for (const c of backend.connections) c.destroy();
      await new Promise((r) => server.close(r));
    },
  };
  server.on('secureConnection', (c: Socket) => backend.connections.push(c));
  server.on('stream', (stream, headers) => {
    // The gateway's streams refused or cut here fail on this side too.
    stream.on('error', () => undefined);
    const path = String(headers[':path'] ?? '');
    if (path === `/apis/${group}/v1`) return answerJson(stream, 200, resourceList);
    if (!path.startsWith(`/apis/${group}/v1/namespaces/`)) return answerJson(stream, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404 });
    backend.seen.push(`${String(headers[':method'])} ${path}`);
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => backend.onResource(stream, headers, Buffer.concat(chunks)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  s.resolver.set('default', name, '127.0.0.1', (server.address() as AddressInfo).port);
  const res = await s.gw.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', {
    body: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `v1.${group}` },
      spec: { group, version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, caBundle: Buffer.from(ca.cert).toString('base64'), service: { namespace: 'default', name } },
    },
  });
  if (res.status !== 201) throw new Error(`APIService create: ${res.status} ${res.text}`);
  await waitForAvailable(s.gw, `v1.${group}`, 'True', 15_000);
  return backend;
}
