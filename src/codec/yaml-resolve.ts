/**
 * go-yaml v2's reading of scalars, and sigs.k8s.io/yaml's conversion of map keys to JSON strings:
 * what kube-apiserver gets from a YAML body. The parser is told to keep every scalar as text
 * (failsafe schema), and these rules decide what each one is, so that `0o17`, `0_`, `1e400` or
 * `.inf` read exactly as they do there.
 */

export class YamlValueError extends Error {}

/** A resolved scalar: a JSON scalar, or a number kube cannot carry in JSON (NaN, ±Inf). */
export type Resolved = null | boolean | number | string;

const TAG = 'tag:yaml.org,2002:';
const STR = `${TAG}str`;
const BINARY = `${TAG}binary`;
const INT = `${TAG}int`;
const FLOAT = `${TAG}float`;
const BOOL = `${TAG}bool`;
const NULL = `${TAG}null`;
const TIMESTAMP = `${TAG}timestamp`;
const MERGE = `${TAG}merge`;
const RESOLVABLE = new Set(['', STR, BINARY, INT, FLOAT, BOOL, NULL, TIMESTAMP, MERGE]);

// go-yaml v2's resolveMap: the words YAML 1.1 gives a meaning.
const WORDS = new Map<string, [string, Resolved]>();
for (const w of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) WORDS.set(w, [BOOL, true]);
for (const w of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) WORDS.set(w, [BOOL, false]);
for (const w of ['', '~', 'null', 'Null', 'NULL']) WORDS.set(w, [NULL, null]);
for (const w of ['.nan', '.NaN', '.NAN']) WORDS.set(w, [FLOAT, NaN]);
for (const w of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) WORDS.set(w, [FLOAT, Infinity]);
for (const w of ['-.inf', '-.Inf', '-.INF']) WORDS.set(w, [FLOAT, -Infinity]);
WORDS.set('<<', [MERGE, '<<']);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const TIMESTAMP_FORMS = [
  /^\d{4}-\d{1,2}-\d{1,2}[Tt]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?(Z|[+-]\d{1,2}(:\d{2})?)?$/,
  /^\d{4}-\d{1,2}-\d{1,2}[ \t]+\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?[ \t]*(Z|[+-]\d{1,2}(:\d{2})?)?$/,
  /^\d{4}-\d{1,2}-\d{1,2}$/,
];

/** Go's strconv.ParseInt(s, 0, 64) / ParseUint, as BigInt, or undefined when Go would refuse it. */
function parseGoInt(s: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  const digits = m[2]!;
  let v: bigint;
  if (/^0[oO]/.test(digits)) v = BigInt(`0o${digits.slice(2)}`);
  else if (/^0[0-7]+$/.test(digits)) v = BigInt(`0o${digits.slice(1)}`);
  else v = BigInt(digits);
  return m[1] === '-' ? -v : v;
}

/** Go's strconv.ParseFloat(s, 64) for the decimal forms YAML lets through; undefined on range errors. */
function parseGoFloat(s: string): number | undefined {
  const f = Number(s);
  if (Number.isNaN(f) || !Number.isFinite(f)) return undefined;
  return f;
}

/** The value go-yaml v2 decodes a scalar to (into an interface{}), or throws YamlValueError. */
export function resolveScalar(text: string, opts: { tag?: string; plain: boolean }): Resolved {
  return resolveTagged(text, opts)[1];
}

/** resolveScalar with the tag it resolved to (sigs.k8s.io/yaml prints int and float keys differently). */
export function resolveTagged(text: string, opts: { tag?: string; plain: boolean }): [string, Resolved] {
  let tag = opts.tag ?? '';
  if (tag === '!') tag = STR;
  // A quoted or block scalar without a tag is a string; one with a tag resolves under that tag.
  if (!opts.plain && tag === '') return [STR, text];
  if (!RESOLVABLE.has(tag)) return [STR, text];
  if (tag === BINARY) return [STR, decodeBinary(text)];
  if (tag === STR) return [STR, text];
  const [rtag, out] = resolvePlain(text, tag);
  // go-yaml v2 hands timestamps to interface{} targets as their text.
  if (tag === '' || tag === rtag) return rtag === TIMESTAMP ? [STR, text] : [rtag, out];
  if (tag === FLOAT && rtag === INT) return [FLOAT, out];
  throw new YamlValueError(`cannot decode ${short(rtag)} \`${text}\` as a ${short(tag)}`);
}

function short(tag: string): string {
  return tag.startsWith(TAG) ? `!!${tag.slice(TAG.length)}` : tag;
}

function resolvePlain(text: string, tag: string): [string, Resolved] {
  const word = WORDS.get(text);
  if (word) return word;
  const c = text.charAt(0);
  if (c === '.') {
    const f = /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) ? parseGoFloat(text) : undefined;
    return f === undefined ? [STR, text] : [FLOAT, f];
  }
  if (!/[-+0-9]/.test(c)) return [STR, text];
  if ((tag === '' || tag === TIMESTAMP) && TIMESTAMP_FORMS.some((re) => re.test(text))) return [TIMESTAMP, text];
  const plain = text.replace(/_/g, '');
  const i = parseGoInt(plain);
  if (i !== undefined && i >= -(2n ** 63n) && i < 2n ** 64n) return [INT, Number(i)];
  if (YAML_STYLE_FLOAT.test(plain)) {
    const f = parseGoFloat(plain);
    if (f !== undefined) return [FLOAT, f];
  }
  return [STR, text];
}

/** `!!binary`: base64 (line breaks ignored, as Go's decoder ignores them), decoded to a string. */
function decodeBinary(text: string): string {
  const b64 = text.replace(/[\r\n]/g, '');
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) {
    throw new YamlValueError('!!binary value contains invalid base64 data');
  }
  // Go's string(bytes) keeps invalid UTF-8, and JSON encoding then writes U+FFFD for it.
  return Buffer.from(b64, 'base64').toString('utf8');
}

/** Whether a key node is go-yaml's merge key (`<<` plain, or tagged !!merge). */
export function isMergeKey(text: string, opts: { tag?: string; plain: boolean }): boolean {
  return text === '<<' && ((opts.plain && !opts.tag) || opts.tag === MERGE);
}

/** sigs.k8s.io/yaml's map key to JSON key: strings as they are, numbers and booleans printed. */
export function jsonKeyOf([tag, key]: [string, Resolved]): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'boolean') return key ? 'true' : 'false';
  if (typeof key === 'number') {
    if (tag === INT && Math.abs(key) < 2 ** 63) return BigInt(key).toString();
    if (tag === INT) throw new YamlValueError(`unsupported map key of type: uint64, key: 0x${BigInt(key).toString(16)}`);
    return formatFloat32(key);
  }
  throw new YamlValueError('unsupported map key of type: %!s(<nil>), key: <nil>');
}

/** Go's strconv.FormatFloat(f, 'g', -1, 32), with YAML's words for the special values. */
function formatFloat32(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (!Number.isFinite(f)) return f > 0 ? '.inf' : '-.inf';
  const target = Math.fround(f);
  if (target === 0) return Object.is(target, -0) ? '-0' : '0';
  if (!Number.isFinite(target)) return f > 0 ? '.inf' : '-.inf';
  let digits = '';
  for (let p = 1; p <= 9; p++) {
    const s = target.toExponential(p - 1);
    if (Math.fround(Number(s)) === target) {
      digits = s;
      break;
    }
  }
  const [mant, e] = digits.split('e') as [string, string];
  const exp = Number(e);
  // Go's shortest %g switches to an exponent from 1e+06 (and below 1e-04).
  if (exp < -4 || exp >= 6) {
    return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(Number(digits));
}
