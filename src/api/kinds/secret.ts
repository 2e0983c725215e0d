/**
 * core/v1 Secret: base64 data, write-only stringData folded into data, a type (default Opaque,
 * immutable) whose well-known values require certain keys.
 */
import type { FieldError } from '../field-errors.ts';
import { fieldErr, fieldPath } from '../field-errors.ts';
import type { KubeObject, ResourceType } from '../types.ts';
import { semanticEqual } from '../validation/equality.ts';
import { validateCoreFinalizerNames, validateCoreObjectMetaUpdate, validateImmutableField, validateObjectMeta } from '../validation/metadata.ts';
import { isConfigMapKey } from '../validation/names.ts';
import { IMMUTABLE_WHEN_SET_MSG, MAX_CONFIG_DATA_SIZE, base64ByteLength } from './configmap.ts';
import { objField, s, strField } from './common-schemas.ts';
import { kindSchema } from './object-meta-schema.ts';
import { goJsonSyntaxError } from '../../codec/json-syntax.ts';

const GO_JSON_MAX_DEPTH = 10000;
import { ageColumn, nameColumn, stringColumn } from './table-columns.ts';

export const SECRET_TYPE = {
  opaque: 'Opaque',
  serviceAccountToken: 'kubernetes.io/service-account-token',
  dockercfg: 'kubernetes.io/dockercfg',
  dockerConfigJson: 'kubernetes.io/dockerconfigjson',
  basicAuth: 'kubernetes.io/basic-auth',
  sshAuth: 'kubernetes.io/ssh-auth',
  tls: 'kubernetes.io/tls',
  bootstrapToken: 'bootstrap.kubernetes.io/token',
} as const;

export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const REDACTED = '<secret contents redacted>';

const schema = kindSchema('Secret data of a certain type, such as a token or a key.', {
  data: s.bytesMap('Secret data, base64 on the wire; keys consist of alphanumerics, `-`, `_` or `.`.'),
  stringData: s.stringMap('Write-only convenience: non-binary values merged into data on write, never read back.'),
  type: s.string('Used to ease programmatic handling of secret data.'),
  immutable: s.boolean('If true, data cannot be changed, only the object deleted.'),
});

/** Moves stringData into data (base64, overriding same keys) and drops stringData, as kube's decoding does. */
export function foldSecretStringData(obj: KubeObject): void {
  const stringData = objField(obj, 'stringData');
  delete obj.stringData;
  if (!stringData || Object.keys(stringData).length === 0) return;
  const data: Record<string, unknown> = { ...(objField(obj, 'data') ?? {}) };
  for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(typeof v === 'string' ? v : String(v), 'utf8').toString('base64');
  obj.data = data;
}

function defaultSecret(obj: KubeObject): void {
  foldSecretStringData(obj);
  if (typeof obj.type !== 'string' || obj.type === '') obj.type = SECRET_TYPE.opaque;
}

/** What Go's json.Unmarshal into a map would say about `bytes`, or undefined when it accepts them. */
export function jsonObjectError(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // encoding/json checks the whole text first: its scanner's words (Go nests at most 10000 deep).
    return goJsonSyntaxError(text, GO_JSON_MAX_DEPTH) ?? 'unexpected end of JSON input';
  }
  if (parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))) return undefined;
  const kind = Array.isArray(parsed) ? 'array' : typeof parsed === 'number' ? 'number' : typeof parsed === 'boolean' ? 'bool' : 'string';
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

function validateSecret(obj: KubeObject): FieldError[] {
  const errs = validateCoreFinalizerNames(obj.metadata);
  const data = objField(obj, 'data') ?? {};
  let total = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErr.invalid(fieldPath.key('data', key), key, msg));
    total += base64ByteLength(value);
  }
  if (total > MAX_CONFIG_DATA_SIZE) errs.push(fieldErr.tooLong('data', '', MAX_CONFIG_DATA_SIZE));
  const has = (k: string) => Object.hasOwn(data, k);
  const key = (k: string) => fieldPath.key('data', k);
  switch (obj.type) {
    case SECRET_TYPE.serviceAccountToken:
      // Only the account name is required; the token controller fills in uid and token later.
      if (!obj.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION]) {
        errs.push(fieldErr.required(fieldPath.key('metadata.annotations', SERVICE_ACCOUNT_NAME_ANNOTATION)));
      }
      break;
    case SECRET_TYPE.dockercfg:
    case SECRET_TYPE.dockerConfigJson: {
      const k = obj.type === SECRET_TYPE.dockercfg ? '.dockercfg' : '.dockerconfigjson';
      if (!has(k)) {
        errs.push(fieldErr.required(key(k)));
        break;
      }
      const problem = jsonObjectError(Buffer.from(String(data[k] ?? ''), 'base64'));
      if (problem) errs.push(fieldErr.invalid(key(k), REDACTED, problem));
      break;
    }
    case SECRET_TYPE.basicAuth:
      // Either may be empty, but at least one must be present.
      if (!has('username') && !has('password')) errs.push(fieldErr.required(key('username')), fieldErr.required(key('password')));
      break;
    case SECRET_TYPE.sshAuth:
      if (base64ByteLength(data['ssh-privatekey']) === 0) errs.push(fieldErr.required(key('ssh-privatekey')));
      break;
    case SECRET_TYPE.tls:
      if (!has('tls.crt')) errs.push(fieldErr.required(key('tls.crt')));
      if (!has('tls.key')) errs.push(fieldErr.required(key('tls.key')));
      break;
    default:
      break;
  }
  return errs;
}

function validateSecretUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = [...validateCoreObjectMetaUpdate(obj.metadata, old.metadata), ...validateImmutableField(obj.type, old.type, 'type')];
  if (old.immutable === true) {
    if (obj.immutable !== true) errs.push(fieldErr.forbidden('immutable', IMMUTABLE_WHEN_SET_MSG));
    // stringData is already folded into data here, so data covers it.
    if (!semanticEqual(obj.data, old.data)) errs.push(fieldErr.forbidden('data', IMMUTABLE_WHEN_SET_MSG));
  }
  // kube's ValidateSecretUpdate ends with the whole ValidateSecret, ObjectMeta checks included.
  return [...errs, ...validateObjectMeta(obj.metadata, { namespaced: true, nameValidation: 'dns1123-subdomain' }), ...validateSecret(obj)];
}

export const secretType: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  listKind: 'SecretList',
  singular: 'secret',
  namespaced: true,
  shortNames: [],
  categories: [],
  schema,
  hasStatus: false,
  nameValidation: 'dns1123-subdomain',
  tableColumns: [
    nameColumn(),
    stringColumn('Type', 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types', (obj) => strField(obj, 'type')),
    stringColumn('Data', 'Data contains the secret data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4', (obj) => Object.keys(objField(obj, 'data') ?? {}).length),
    ageColumn,
  ],
  fieldSelectors: { type: (obj) => strField(obj, 'type') },
  strategy: {
    // stringData folds into data in kube's conversion and the type defaults in SetDefaults_Secret: both at decode.
    defaults: defaultSecret,
    validate: validateSecret,
    validateUpdate: validateSecretUpdate,
  },
  storagePrefix: '/registry/secrets/',
};
