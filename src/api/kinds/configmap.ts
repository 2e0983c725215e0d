/** core/v1 ConfigMap: string and binary data under config keys, at most 1 MiB, optionally immutable. */
import type { FieldError } from '../field-errors.ts';
import { fieldErr, fieldPath } from '../field-errors.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import { validateCoreFinalizerNames, validateCoreObjectMetaUpdate, validateObjectMeta, type ObjectMetaOptions } from '../validation/metadata.ts';

const CONFIGMAP_META: ObjectMetaOptions = { namespaced: true, nameValidation: 'dns1123-subdomain' };
import { byteLength, isConfigMapKey } from '../validation/names.ts';
import { objField, s } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';

/** Largest total of data and binaryData (kube's MaxSecretSize), in bytes. */
export const MAX_CONFIG_DATA_SIZE = 1024 * 1024;
export const IMMUTABLE_WHEN_SET_MSG = 'field is immutable when `immutable` is set';

const schema = kindSchema('Configuration data for pods to consume.', {
  data: s.stringMap('Configuration data; keys consist of alphanumerics, `-`, `_` or `.`.'),
  binaryData: s.bytesMap('Binary configuration data, base64 on the wire; keys may not repeat those of data.'),
  immutable: s.boolean('If true, data and binaryData cannot be changed, only the object deleted.'),
});

/** Decoded size in bytes of a base64 value (the schema has already rejected bad base64). */
export function base64ByteLength(v: unknown): number {
  return typeof v === 'string' ? Buffer.from(v, 'base64').length : 0;
}

function validateConfigMap(obj: KubeObject): FieldError[] {
  const errs = validateCoreFinalizerNames(obj.metadata);
  const data = objField(obj, 'data') ?? {};
  const binary = objField(obj, 'binaryData') ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    const path = fieldPath.key('data', key);
    for (const msg of isConfigMapKey(key)) errs.push(fieldErr.invalid(path, key, msg));
    if (Object.hasOwn(binary, key)) errs.push(fieldErr.invalid(path, key, 'duplicate of key present in binaryData'));
    total += typeof value === 'string' ? byteLength(value) : 0;
  }
  for (const [key, value] of Object.entries(binary)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErr.invalid(fieldPath.key('binaryData', key), key, msg));
    total += base64ByteLength(value);
  }
  // kube's field.NewPath(""), about the whole object: a path element without a name prints as "[]".
  if (total > MAX_CONFIG_DATA_SIZE) errs.push(fieldErr.tooLong('[]', '', MAX_CONFIG_DATA_SIZE));
  return errs;
}

function validateConfigMapUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (old.immutable === true) {
    if (obj.immutable !== true) errs.push(fieldErr.forbidden('immutable', IMMUTABLE_WHEN_SET_MSG));
    if (!semanticEqual(obj.data, old.data)) errs.push(fieldErr.forbidden('data', IMMUTABLE_WHEN_SET_MSG));
    if (!semanticEqual(obj.binaryData, old.binaryData)) errs.push(fieldErr.forbidden('binaryData', IMMUTABLE_WHEN_SET_MSG));
  }
  // kube's ValidateConfigMapUpdate ends with the whole ValidateConfigMap, ObjectMeta checks included
  // (so an update reports a metadata error once more than the generic checks alone).
  return [...validateCoreObjectMetaUpdate(obj.metadata, old.metadata), ...errs, ...validateObjectMeta(obj.metadata, CONFIGMAP_META), ...validateConfigMap(obj)];
}

function dataCount(obj: KubeObject): number {
  return Object.keys(objField(obj, 'data') ?? {}).length + Object.keys(objField(obj, 'binaryData') ?? {}).length;
}

export const configMapType: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  listKind: 'ConfigMapList',
  singular: 'configmap',
  namespaced: true,
  shortNames: ['cm'],
  categories: [],
  schema,
  hasStatus: false,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    stringColumn('Data', 'Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.', dataCount),
    ageColumn,
  ],
  fieldSelectors: {},
  strategy: {
    validate: validateConfigMap,
    validateUpdate: validateConfigMapUpdate,
  },
  storagePrefix: '/registry/configmaps/',
};
