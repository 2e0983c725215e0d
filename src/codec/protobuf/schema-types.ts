/**
 * The shape of the hand-written message tables: one entry per protobuf field, carrying both
 * the wire facts (number, type, repeated/map) taken from kube's generated.proto files and the
 * JSON facts (json name, Go `omitempty`, Go pointer) that decide how an absent or zero value
 * shows up in kube's JSON.
 */

/** Scalars and the meta types with their own JSON form. */
export type ScalarType =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'int32'
  | 'int64'
  /** meta/v1 Time: {seconds=1, nanos=2}; JSON RFC 3339 to the second. */
  | 'Time'
  /** meta/v1 MicroTime: same wire shape; JSON RFC 3339 with 6 fraction digits. */
  | 'MicroTime'
  /** meta/v1 FieldsV1 {Raw=1 bytes}: JSON is the parsed document held in Raw. */
  | 'FieldsV1'
  /** A float64 (wire type 1, little-endian IEEE 754); JSON a number. */
  | 'double'
  /** apiextensions/v1 JSON {raw=1 bytes}: any JSON value, its text held in raw (null when empty). */
  | 'JSON';

/**
 * How the Go field renders in JSON:
 * - `omitempty`: a value field with `,omitempty`; zero scalars and empty lists/maps are left out.
 * - `always`: a value field without omitempty; zero scalars are written, empty lists are null.
 * - `pointer`: a Go pointer; written exactly when present on the wire, even when zero.
 * - `inline`: an embedded struct (`json:",inline"`): a nested message on the wire whose fields
 *   are the parent's own in JSON (the field's name appears in neither).
 * Value structs (and Time) are written whenever they are present on the wire, as Go writes them.
 */
export type JsonPresence = 'omitempty' | 'always' | 'pointer' | 'inline';

export type FieldType =
  | { readonly kind: 'scalar'; readonly type: ScalarType }
  | { readonly kind: 'message'; readonly message: string }
  | { readonly kind: 'map'; readonly value: MapValue };

/**
 * Map values: strings, bytes, `strings`: a message whose field 1 is `repeated string`, which
 * Go writes in JSON as a plain list (authentication/authorization ExtraValue), or a message
 * (apiextensions JSONSchemaProps' properties).
 */
export type MapValue = 'string' | 'bytes' | 'strings' | { readonly message: string };

/**
 * A message whose JSON is not an object of its fields (a Go type with its own MarshalJSON, such as
 * apiextensions' JSONSchemaPropsOrBool: `true`, `false` or a schema): the JSON value of the
 * decoded fields, and the fields of a JSON value to encode.
 */
export interface JsonAdapter {
  toJson(fields: Record<string, unknown>): unknown;
  /** The fields to encode; undefined when the value has no form in this message (a wrong type). */
  fromJson(value: unknown): Record<string, unknown> | undefined;
}

export interface FieldDef {
  /** The JSON name (also the proto field name). */
  readonly name: string;
  readonly no: number;
  readonly type: FieldType;
  readonly repeated: boolean;
  readonly presence: JsonPresence;
}

export interface MessageDef {
  readonly name: string;
  /** In Go struct order, which is the order kube's JSON writes them. */
  readonly fields: readonly FieldDef[];
}

type FieldSpec = readonly [name: string, no: number, type: string, presence?: JsonPresence];

const SCALARS: ReadonlySet<string> = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'Time', 'MicroTime', 'FieldsV1', 'double', 'JSON']);

/**
 * Builds a message from compact specs: type is a scalar name, a message name,
 * `[]T` for repeated, or `map<string,string>` / `map<string,bytes>` / `map<string,ExtraValue>` /
 * `map<string,Message>`. Presence defaults to omitempty.
 */
export function message(name: string, specs: readonly FieldSpec[]): MessageDef {
  return {
    name,
    fields: specs.map(([fieldName, no, rawType, presence]) => {
      const repeated = rawType.startsWith('[]');
      const base = repeated ? rawType.slice(2) : rawType;
      let type: FieldType;
      if (base === 'map<string,string>') type = { kind: 'map', value: 'string' };
      else if (base === 'map<string,bytes>') type = { kind: 'map', value: 'bytes' };
      else if (base === 'map<string,ExtraValue>') type = { kind: 'map', value: 'strings' };
      else if (base.startsWith('map<string,')) type = { kind: 'map', value: { message: base.slice('map<string,'.length, -1) } };
      else if (SCALARS.has(base)) type = { kind: 'scalar', type: base as ScalarType };
      else type = { kind: 'message', message: base };
      return { name: fieldName, no, type, repeated, presence: presence ?? 'omitempty' };
    }),
  };
}

/** A registered top-level kind: which message its `raw` bytes hold. */
export interface KindDef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly message: string;
}
