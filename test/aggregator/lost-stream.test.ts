/**
 * The verdict on a proxied HTTP/2 stream that ended before its response headers (lost-stream.ts):
 * sent again only when the backend cannot have processed it with its body; otherwise the error
 * text Go's transport gives, which kube-aggregator answers 503 with.
 */
import { describe, expect, it } from 'vitest';
import { judgeLostStream, type LostStream } from '../../src/aggregator/lost-stream.ts';

const healthy: LostStream = { id: 5, rstCode: undefined, goaway: undefined, connectionLost: false, socketError: undefined };

describe('judgeLostStream', () => {
  it('retries a stream above the GOAWAY last stream id when it has no body, whatever the method', () => {
    const lost = { ...healthy, rstCode: 7, goaway: { code: 0, lastStreamId: 3 } };
    expect(judgeLostStream(lost, true, false).retry).toBe(true);
    expect(judgeLostStream(lost, false, false).retry).toBe(true);
    const post = judgeLostStream(lost, false, true);
    expect(post.retry).toBe(false);
    expect(post.error.message).toBe("http2: Transport: cannot retry err [http2: Transport received Server's graceful shutdown GOAWAY] after Request.Body was written; define Request.GetBody to avoid this error");
  });

  it('treats REFUSED_STREAM on a live connection as unprocessed', () => {
    expect(judgeLostStream({ ...healthy, rstCode: 7 }, true, false).retry).toBe(true);
    expect(judgeLostStream({ ...healthy, rstCode: 7 }, false, true).error.message).toContain('[stream error: stream ID 5; REFUSED_STREAM; received from peer]');
  });

  it('retries only idempotent bodiless requests whose connection died before an answer', () => {
    const lost = { ...healthy, rstCode: 8, connectionLost: true };
    expect(judgeLostStream(lost, true, false).retry).toBe(true);
    const post = judgeLostStream(lost, false, true);
    expect(post).toMatchObject({ retry: false });
    expect(post.error.message).toBe('unexpected EOF');
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(judgeLostStream({ ...lost, socketError: reset }, false, true).error).toBe(reset);
    // A stream the GOAWAY said would be processed, then the connection closed: Go's GoAwayError.
    const afterGoaway = judgeLostStream({ ...lost, goaway: { code: 0, lastStreamId: 5 } }, false, true);
    expect(afterGoaway.error.message).toBe('http2: server sent GOAWAY and closed the connection; LastStreamID=5, ErrCode=NO_ERROR, debug=""');
  });

  it('retries a stream that never got an id (never sent), even with a body', () => {
    expect(judgeLostStream({ ...healthy, id: undefined, connectionLost: true }, false, true).retry).toBe(true);
  });

  it('never retries a stream the backend reset on a live connection, nor the first stream of an error GOAWAY', () => {
    const reset = judgeLostStream({ ...healthy, rstCode: 2 }, true, false);
    expect(reset).toMatchObject({ retry: false });
    expect(reset.error.message).toBe('stream error: stream ID 5; INTERNAL_ERROR; received from peer');
    const first = judgeLostStream({ ...healthy, id: 1, rstCode: 2, goaway: { code: 1, lastStreamId: 0 } }, true, false);
    expect(first).toMatchObject({ retry: false });
    expect(first.error.message).toBe('http2: Transport received GOAWAY from server ErrCode:PROTOCOL_ERROR');
  });
});
