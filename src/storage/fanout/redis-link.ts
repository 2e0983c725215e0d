/**
 * The Redis connections of the watch fanout (node-redis v5). Replies come back as Buffers
 * (event values are bytes), commands fail at once while the connection is down instead of
 * queueing (a queued append or read would run at an unknown later point), and the client keeps
 * reconnecting in the background.
 */
import { createClient, RESP_TYPES } from 'redis';

export type Reply = null | number | Buffer | Reply[];

export interface RedisLink {
  /** Runs one command; rejects while the connection is down. */
  send(args: ReadonlyArray<string | Buffer>): Promise<Reply>;
  /** Runs a Lua script over `keys` with `args`. */
  eval(script: string, keys: readonly string[], args: ReadonlyArray<string | Buffer>): Promise<Reply>;
  readonly ready: boolean;
  /** This connection's CLIENT ID (for CLIENT UNBLOCK), once connected. */
  id(): Promise<number>;
  close(): void;
}

/**
 * Opens a connection that keeps (re)connecting in the background: a Redis that is down at start
 * is no error, the fanout starts on direct store watches. `connected` resolves on the first
 * connection.
 */
export function openRedis(url: string, onError: (err: Error) => void): { link: RedisLink; connected: Promise<void> } {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.SIMPLE_STRING]: Buffer } },
    socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 1000) },
  });
  // Without a listener node-redis would throw the error (and take the process down).
  client.on('error', onError);
  const connected = client.connect().then(
    () => undefined,
    () => undefined,
  );
  let cachedId: Promise<number> | undefined;
  client.on('ready', () => (cachedId = undefined));
  const send = (args: ReadonlyArray<string | Buffer>) => client.sendCommand(args) as Promise<Reply>;
  const link: RedisLink = {
    send,
    eval: (script, keys, args) => send(['EVAL', script, String(keys.length), ...keys, ...args]),
    get ready() {
      return client.isReady;
    },
    id: () => (cachedId ??= send(['CLIENT', 'ID']).then((r) => Number(r))),
    close: () => {
      if (client.isOpen) client.destroy();
    },
  };
  return { link, connected };
}

/** The URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/([^@/]*):[^@/]*@/, '//$1:***@');
}

export function asNumber(r: Reply): number | null {
  if (r === null) return null;
  if (typeof r === 'number') return r;
  if (Buffer.isBuffer(r)) return Number(r.toString());
  return null;
}

/** A subscriber connection on one channel (node-redis resubscribes after reconnecting). */
export function subscribeRedis(url: string, channel: string, onMessage: () => void, onError: (err: Error) => void): { close(): void } {
  const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 1000) } });
  client.on('error', onError);
  let closed = false;
  void client
    .connect()
    .then(() => (closed ? undefined : client.subscribe(channel, onMessage)))
    .catch(() => undefined);
  return {
    close: () => {
      closed = true;
      if (client.isOpen) client.destroy();
    },
  };
}
