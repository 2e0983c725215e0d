/**
 * The ResourceType of a create-only kind (reviews, TokenRequest): created, answered and forgotten,
 * never stored, so it needs only what body decoding, field validation and discovery read.
 */
import type { ResourceType } from '../types.ts';
import { kindSchema } from './object-meta-schema.ts';

export function createOnlyType(group: string, resource: string, kind: string, namespaced: boolean, schema: ReturnType<typeof kindSchema>): ResourceType {
  return {
    group,
    version: 'v1',
    resource,
    kind,
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: [],
    categories: [],
    schema,
    hasStatus: false,
    nameValidation: 'path-segment',
    tableColumns: [],
    fieldSelectors: {},
    strategy: {},
    // Never stored; a prefix nobody else uses keeps the type well-formed.
    storagePrefix: `/registry/${group}/${resource}/`,
    virtual: { verbs: ['create'] },
  };
}
