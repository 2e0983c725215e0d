/**
 * Server-side apply as a pure library: apply with ownership and conflicts, update tracking,
 * and the FieldsV1 encoding of field sets. The HTTP layer calls these; nothing here does I/O.
 */
export { serverSideApply, trackUpdate, managerFromUserAgent, managerOrUserAgent, type ApplyContext } from './engine.ts';
export { fieldSetToFieldsV1, fieldsV1ToFieldSet, type FieldsV1 } from './fields-v1.ts';
export { FieldSet } from './field-set.ts';
export { pathToString, type Path, type PathElement } from './path.ts';
export { LAST_APPLIED_ANNOTATION } from './last-applied.ts';
export { conflictError, type Conflict } from './conflicts.ts';
