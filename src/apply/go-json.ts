/**
 * JSON text as Go's encoding/json writes it: map keys sorted, `<`, `>`, `&`, U+2028 and U+2029
 * escaped, control characters as `\u00XX` except `\n`, `\r`, `\t`. Kubernetes writes field-set
 * keys and the last-applied annotation this way, and clients compare them byte for byte.
 */

function escapeString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x3c && c !== 0x3e && c !== 0x26 && c !== 0x2028 && c !== 0x2029) {
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = s.charCodeAt(i + 1);
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          out += s[i]! + s[i + 1]!;
          i++;
        } else {
          out += '\ufffd';
        }
        continue;
      }
      out += s[i];
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        break;
      case 0x5c:
        out += '\\\\';
        break;
      case 0x0a:
        out += '\\n';
        break;
      case 0x0d:
        out += '\\r';
        break;
      case 0x09:
        out += '\\t';
        break;
      default:
        out += `\\u${c.toString(16).padStart(4, '0')}`;
    }
  }
  return out + '"';
}

/** Encodes a JSON value the way Go's json.Marshal does (no trailing newline). */
export function encodeGoJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return escapeString(v);
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'object': {
      if (Array.isArray(v)) return `[${v.map(encodeGoJson).join(',')}]`;
      const keys = Object.keys(v as Record<string, unknown>)
        .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${keys.map((k) => `${escapeString(k)}:${encodeGoJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
    }
    default:
      return 'null';
  }
}
