/**
 * What to do with a proxied HTTP/2 stream that ended before the backend's response headers:
 * send it again on another session, or answer 503 with the error text Go's HTTP/2 transport
 * (golang.org/x/net/http2, which kube-aggregator proxies through) would have given.
 *
 * Go's rules, as the gateway follows them:
 * - a stream the backend provably did not process (id above the last stream id of its GOAWAY, or
 *   reset with REFUSED_STREAM) is sent again when it has no body (Go cannot resend a body its
 *   reverse proxy already streamed: kube-aggregator answers 503 "cannot retry err [...]");
 * - beyond Go, an idempotent request without a body (GET, HEAD, OPTIONS) whose connection died
 *   before any answer is sent once more too (a backend killed without GOAWAY, or one that closed
 *   after a GOAWAY without answering): it cannot have changed anything;
 * - anything else (a POST cut off mid-flight, a stream reset by the backend on a healthy
 *   connection) is 503, never resent.
 */

/** HTTP/2 error code names (RFC 9113 section 7) as Go's http2.ErrCode prints them. */
const H2_ERROR_NAMES = [
  'NO_ERROR',
  'PROTOCOL_ERROR',
  'INTERNAL_ERROR',
  'FLOW_CONTROL_ERROR',
  'SETTINGS_TIMEOUT',
  'STREAM_CLOSED',
  'FRAME_SIZE_ERROR',
  'REFUSED_STREAM',
  'CANCEL',
  'COMPRESSION_ERROR',
  'CONNECT_ERROR',
  'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY',
  'HTTP_1_1_REQUIRED',
];

const REFUSED_STREAM = 7;

export function h2ErrorName(code: number): string {
  return H2_ERROR_NAMES[code] ?? `unknown error code 0x${code.toString(16)}`;
}

/** The last GOAWAY a session received. */
export interface GoawayReceived {
  readonly code: number;
  readonly lastStreamId: number;
}

/** How a stream ended without response headers, as the transport observed it. */
export interface LostStream {
  /** The stream's id; undefined when it was never sent (the session ended before it could open). */
  readonly id: number | undefined;
  /** The RST_STREAM code it closed with. */
  readonly rstCode: number | undefined;
  readonly goaway: GoawayReceived | undefined;
  /** The connection under the session is gone (socket closed or failed). */
  readonly connectionLost: boolean;
  /** The socket error that ended the session, if one did (ECONNRESET...). */
  readonly socketError: NodeJS.ErrnoException | undefined;
}

/** Whether to send the request again; `error` is what the proxy answers (503) when it is not sent again. */
export interface LostStreamVerdict {
  readonly retry: boolean;
  readonly error: NodeJS.ErrnoException;
}

function failure(message: string, code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

/** Go's http2.StreamError text for a reset the backend sent. */
function streamError(id: number | undefined, rstCode: number): string {
  return `stream error: stream ID ${id ?? 0}; ${h2ErrorName(rstCode)}; received from peer`;
}

const GRACEFUL_GOAWAY = "http2: Transport received Server's graceful shutdown GOAWAY";

/**
 * The verdict for `lost`: `idempotent` is GET, HEAD or OPTIONS; `hasBody` a request body was
 * sent. The caller sends a request again at most once, whatever the verdict of the second attempt.
 */
export function judgeLostStream(lost: LostStream, idempotent: boolean, hasBody: boolean): LostStreamVerdict {
  const { id, rstCode, goaway } = lost;
  // A stream that never got an id never left the gateway: safe to send again, body or not (Go's errClientConnUnusable).
  if (id === undefined && lost.connectionLost) return { retry: true, error: failure('http2: client connection lost', 'KGW_H2_LOST') };
  const refusedByGoaway = goaway !== undefined && id !== undefined && id > goaway.lastStreamId;
  // Go does not retry the first stream of a connection that opened with an error GOAWAY: a new connection would likely get the same.
  if (refusedByGoaway && goaway.code !== 0 && id === 1) return { retry: false, error: failure(`http2: Transport received GOAWAY from server ErrCode:${h2ErrorName(goaway.code)}`, 'KGW_H2_GOAWAY') };
  const refusedStream = !refusedByGoaway && rstCode === REFUSED_STREAM;
  if (refusedByGoaway || refusedStream) {
    const inner = refusedStream ? streamError(id, REFUSED_STREAM) : GRACEFUL_GOAWAY;
    if (!hasBody) return { retry: true, error: failure(inner, 'KGW_H2_UNPROCESSED') };
    return { retry: false, error: failure(`http2: Transport: cannot retry err [${inner}] after Request.Body was written; define Request.GetBody to avoid this error`, 'KGW_H2_UNPROCESSED') };
  }
  if (lost.connectionLost) {
    const retry = idempotent && !hasBody;
    if (goaway) return { retry, error: failure(`http2: server sent GOAWAY and closed the connection; LastStreamID=${goaway.lastStreamId}, ErrCode=${h2ErrorName(goaway.code)}, debug=""`, 'KGW_H2_GOAWAY') };
    // ECONNRESET and friends keep their code: the proxy words them as Go's net errors.
    return { retry, error: lost.socketError ?? failure('unexpected EOF', 'KGW_H2_EOF') };
  }
  return { retry: false, error: failure(streamError(id, rstCode ?? 0), 'KGW_H2_STREAM_RESET') };
}
