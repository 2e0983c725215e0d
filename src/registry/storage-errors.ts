/**
 * The one boundary where storage errors become API errors: codes map to Status reasons, and the
 * 410 text depends on what kind of read failed, as kube-apiserver words it.
 */
import { StorageError } from '../storage/types.ts';
import { ApiError, errors, type GroupResource } from '../api/status-errors.ts';

/** What kind of read failed (for the 410 and 504 texts), and at which revision. */
export interface ReadContext {
  readonly kind: 'get' | 'list' | 'continue' | 'watch';
  readonly revision?: number;
}

/** Maps any error from storage to the ApiError kube-apiserver would send. */
export function storageErrorToApi(err: unknown, gr: GroupResource, name: string, read?: ReadContext): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StorageError) {
    switch (err.code) {
      case 'KeyExists':
        return errors.alreadyExists(gr, name);
      case 'NotFound':
        return errors.notFound(gr, name);
      case 'Conflict':
        return errors.staleResourceVersion(gr, name);
      case 'TooOld':
        if (read?.kind === 'continue') {
          return errors.expired('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.');
        }
        if (read?.kind === 'list') return errors.expired('The resourceVersion for the provided list is too old.');
        return errors.expired(`too old resource version: ${read?.revision ?? 0} (${err.revision ?? 0})`);
      case 'TooLarge':
        return errors.tooLargeResourceVersion(read?.revision ?? 0, err.revision ?? 0);
      case 'Corrupt':
        // kube-apiserver's StorageError text for ErrCodeCorruptObj (code 7).
        return errors.internal(`StorageError: corrupt object, Code: 7, Key: ${err.key ?? name}, ResourceVersion: 0, AdditionalErrorMsg: ${err.message}`);
      case 'Unavailable':
        return errors.serviceUnavailable(err.message);
    }
  }
  return errors.internal(err instanceof Error ? err.message : String(err));
}

/** Whether an API error reports an object the store cannot decode (the unsafe delete may remove it). */
export function isCorruptObjectError(err: unknown): boolean {
  return err instanceof ApiError && err.code === 500 && err.message.startsWith('Internal error occurred: StorageError: corrupt object');
}
