/**
 * The 403 of a request the chain did not allow, as kube's responsewriters.Forbidden builds it:
 * `<resource>[.<group>] ["<name>"] is forbidden: User "u" cannot ...[: <reason>]`, or for a
 * non-resource path `forbidden: User "u" cannot get path "/x"`.
 */
import { ApiError } from '../api/status-errors.ts';
import { forbiddenMessage, type Attributes } from './authorizer.ts';

export function forbiddenError(attrs: Attributes, reason: string): ApiError {
  const msg = forbiddenMessage(attrs);
  const err = reason === '' ? msg : `${msg}: ${reason}`;
  // kube's NewForbidden: the details name the group and resource, never the subresource.
  const group = attrs.isResourceRequest ? attrs.apiGroup : '';
  const resource = attrs.isResourceRequest ? attrs.resource : '';
  const name = attrs.isResourceRequest ? attrs.name : '';
  if (group === '' && resource === '') return new ApiError(403, 'Forbidden', `forbidden: ${err}`, {});
  const qualified = group === '' ? resource : `${resource}.${group}`;
  return new ApiError(403, 'Forbidden', `${qualified}${name !== '' ? ` ${JSON.stringify(name)}` : ''} is forbidden: ${err}`, {
    ...(name !== '' ? { name } : {}),
    ...(group !== '' ? { group } : {}),
    kind: resource,
  });
}
