/**
 * The field manager of a non-apply write: `fieldManager` from the query, else derived from the
 * User-Agent as kube-apiserver does.
 */
import { errors } from '../../api/status-errors.ts';
import { managerFromUserAgent } from '../../apply/index.ts';

export function managerFor(query: URLSearchParams, userAgent: string): string {
  const m = query.get('fieldManager');
  if (m !== null && m !== '') {
    if (m.length > 128) throw errors.badRequest('fieldManager: Too long: must have at most 128 bytes');
    return m;
  }
  return managerFromUserAgent(userAgent);
}
