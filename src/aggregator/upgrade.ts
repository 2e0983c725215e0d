/**
 * Upgrade requests (`Connection: Upgrade`: SPDY/3.1 and WebSocket `v5.channel.k8s.io` for exec,
 * attach and port-forward) through the front door and on to a backend.
 *
 * Node hands an upgrade request to the server's 'upgrade' listeners with the bare socket and no
 * response object, outside Fastify. `acceptUpgrades` gives it a response bound to that socket
 * and sends it through Fastify's 'request' path like any other request, so authentication,
 * flow control, authorization and routing apply unchanged. A route that does not upgrade answers
 * normally (and the connection closes after it); the proxy of a remote group/version sees the
 * socket (`upgradeOf`) and, once the backend answered 101, pipes bytes both ways.
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { FastifyReply } from 'fastify';

export interface UpgradeSocket {
  readonly socket: Duplex;
}

const UPGRADE = Symbol('kube-gateway.upgrade');

/** The client socket of an upgrade request, when `req` is one. */
export function upgradeOf(req: IncomingMessage): UpgradeSocket | undefined {
  return (req as IncomingMessage & { [UPGRADE]?: UpgradeSocket })[UPGRADE];
}

/** Routes upgrade requests of `server` through its 'request' listeners (Fastify) with a response on their socket. */
export function acceptUpgrades(server: http.Server | https.Server): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Bytes the client sent after the request head belong to the upgraded protocol.
    if (head.length > 0) socket.unshift(head);
    (req as IncomingMessage & { [UPGRADE]?: UpgradeSocket })[UPGRADE] = { socket };
    socket.on('error', () => socket.destroy());
    const res = new http.ServerResponse(req);
    // The HTTP parser has left this socket: one answer, then it closes.
    res.shouldKeepAlive = false;
    res.assignSocket(socket as import('node:net').Socket);
    res.once('finish', () => socket.end());
    server.emit('request', req, res);
  });
}

export interface UpgradeTarget {
  readonly host: string;
  readonly port: number;
  readonly serverName: string;
  readonly tls: https.RequestOptions;
}

/**
 * Sends the upgrade request to the backend on a connection of its own (always HTTP/1.1). On 101
 * the reply is taken over: the backend's 101 head goes to the client and the two sockets are
 * piped until either side ends. Any other answer is relayed as a normal response. Resolves with
 * the backend's status once the exchange started (101 sent) or the normal response was handed to
 * Fastify; rejects when the backend cannot be reached. (A fresh connection, never the h2 session:
 * HTTP/2 has no Upgrade.)
 */
export function proxyUpgrade(reply: FastifyReply, client: UpgradeSocket, target: UpgradeTarget, method: string, path: string, headers: OutgoingHttpHeaders, hopByHop: ReadonlySet<string>): Promise<number> {
  const req = reply.request.raw;
  const out: OutgoingHttpHeaders = { ...headers, connection: 'Upgrade', upgrade: req.headers.upgrade ?? '' };
  return new Promise((resolve, reject) => {
    const upstream = https.request({ ...target.tls, host: target.host, port: target.port, servername: target.serverName, method, path, headers: out, agent: false });
    const onClientClose = () => upstream.destroy();
    client.socket.once('close', onClientClose);
    upstream.once('error', (err) => {
      client.socket.off('close', onClientClose);
      reject(err);
    });
    upstream.once('upgrade', (res: IncomingMessage, backend: Duplex, head: Buffer) => {
      client.socket.off('close', onClientClose);
      reply.hijack();
      const lines = [`HTTP/1.1 101 ${res.statusMessage || 'Switching Protocols'}`];
      for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
      client.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) client.socket.write(head);
      backend.on('error', () => client.socket.destroy());
      client.socket.on('error', () => backend.destroy());
      backend.once('close', () => client.socket.destroy());
      client.socket.once('close', () => backend.destroy());
      backend.pipe(client.socket);
      client.socket.pipe(backend);
      resolve(101);
    });
    upstream.once('response', (res: IncomingMessage) => {
      client.socket.off('close', onClientClose);
      // The backend declined the upgrade: its answer goes back as is.
      reply.code(res.statusCode ?? 502);
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !hopByHop.has(k)) reply.header(k, v);
      void reply.send(res);
      resolve(res.statusCode ?? 502);
    });
    upstream.end();
  });
}
