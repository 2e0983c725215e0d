/**
 * A request's body as the layers below the HTTP server read it: the bytes as received and the
 * Content-Type they were sent with. Decoding happens in the backend, at the point of the verb
 * where kube's handlers decode, so errors keep kube's order.
 */
export interface RequestBody {
  /** The Content-Type header as sent; undefined when absent. */
  readonly contentType: string | undefined;
  /** The bytes as received; undefined or empty when none were sent. */
  readonly bytes: Buffer | undefined;
}

/**
 * A body this large is decoded with a yield to the event loop on either side (so health probes
 * run between reading, decoding and storing it) and waits for its share of the server's budget of
 * large-body bytes (src/server/load-limits.ts).
 */
export const LARGE_BODY_BYTES = 256 * 1024;
