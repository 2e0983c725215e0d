/**
 * The 400 a create or update gets when its body cannot be decoded, worded as kube-apiserver's
 * transformDecodeError: the base error, then a 30-byte summary of the body.
 */
import { ApiError, errors } from '../api/status-errors.ts';

/** kube's summarizeData: the body as text when it starts with `{`, else hex; 30 bytes, then ` ...`. */
export function summarizeBody(bytes: Uint8Array): string {
  const max = 30;
  if (bytes.length === 0) return '<empty>';
  const head = bytes.subarray(0, max);
  const more = bytes.length > max ? ' ...' : '';
  if (bytes[0] === 0x7b) return new TextDecoder('utf-8', { ignoreBOM: true }).decode(head) + more;
  return Buffer.from(head).toString('hex') + more;
}

/**
 * Wraps a decode failure: with `expectedKind` (the kind the endpoint serves) it reads
 * `the object provided is unrecognized (must be of type K): <base> (<summary>)`; without, the base alone.
 */
export function decodeFailure(base: string, body: Uint8Array, expectedKind: string | undefined): ApiError {
  if (!expectedKind) return errors.badRequest(base);
  return errors.badRequest(`the object provided is unrecognized (must be of type ${expectedKind}): ${base} (${summarizeBody(body)})`);
}

export function toBytes(input: Uint8Array | string): Uint8Array {
  return typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
}

export function toText(input: Uint8Array | string): string {
  // ignoreBOM keeps a leading BOM in the text so that it is rejected as Go rejects it.
  return typeof input === 'string' ? input : new TextDecoder('utf-8', { ignoreBOM: true }).decode(input);
}

/** kube's strict decoder keeps at most this many strict errors. */
export const MAX_STRICT_ERRORS = 100;
