/**
 * JSON response bodies as Go's encoding/json writes them for kube-apiserver: `<`, `>`, `&`,
 * U+2028 and U+2029 escaped; compact output ends with a newline (json.Encoder), pretty output
 * is indented by two spaces without one (json.MarshalIndent).
 */

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** Go's json.Marshal text of a value (no trailing newline), for embedding in larger documents. */
export function stringifyGo(value: unknown, pretty = false): string {
  const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
  // The characters Go escapes can only occur inside strings, so a global replace is safe.
  return /[<>&\u2028\u2029]/.test(text) ? text.replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]!) : text;
}

/** A whole response body: compact output ends with a newline, pretty output does not. */
export function encodeJson(value: unknown, pretty = false): string {
  const escaped = stringifyGo(value, pretty);
  return pretty ? escaped : `${escaped}\n`;
}
