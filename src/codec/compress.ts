/**
 * Response compression as kube-apiserver does it (feature APIResponseCompression): gzip at level 1
 * when the client's Accept-Encoding lists `gzip` and the body is larger than 128 KiB.
 */
import { gzipSync, constants } from 'node:zlib';

/** kube's defaultGzipThresholdBytes: bodies of this size or smaller are sent as they are. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** kube's defaultGzipContentEncodingLevel: fastest, ratios within ~1.3x of the best. */
export const GZIP_LEVEL = 1;

/** True when Accept-Encoding has a `gzip` token (kube compares whole comma-separated tokens). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  return acceptEncoding.split(',').some((t) => t.trim() === 'gzip');
}

export interface MaybeCompressed {
  readonly body: Uint8Array;
  /** Headers to add: Content-Encoding and Vary when compressed, none otherwise. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Compresses when allowed and worth it; never changes the body otherwise. */
export function maybeGzip(body: Uint8Array | string, acceptEncoding: string | undefined, enabled = true): MaybeCompressed {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (!enabled || bytes.length <= GZIP_THRESHOLD_BYTES || !acceptsGzip(acceptEncoding)) return { body: bytes, headers: {} };
  return {
    body: gzipSync(bytes, { level: GZIP_LEVEL, strategy: constants.Z_DEFAULT_STRATEGY }),
    headers: { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' },
  };
}
