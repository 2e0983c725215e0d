/**
 * A validating JSON scanner that runs only on the error path (after JSON.parse has failed or
 * the depth pre-check tripped) and names the first problem in the words Go's encoding/json
 * uses, because kube-apiserver puts those words in its 400 messages.
 */

/** Go's `quoteChar`: the offending byte in single quotes, escaped like strconv.Quote. */
function quoteChar(byte: number): string {
  if (byte === 0x27) return `'\\''`;
  if (byte === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  const n = named[byte];
  if (n) return `'${n}'`;
  if (byte < 0x20 || byte === 0x7f) return `'\\x${byte.toString(16).padStart(2, '0')}'`;
  if (byte >= 0x80 && byte < 0xa0) return `'\\u00${byte.toString(16).padStart(2, '0')}'`;
  if (byte === 0xad) return `'\\u00ad'`;
  return `'${String.fromCharCode(byte)}'`;
}

/** The first UTF-8 byte of the character at `i` (Go scans bytes, so it reports that byte). */
function firstUtf8Byte(text: string, i: number): number {
  const cp = text.codePointAt(i)!;
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

class SyntaxFailure {
  constructor(readonly message: string, readonly offset: number) {}
}

/**
 * Returns Go's message for the first syntax error in `text` (nesting beyond `maxDepth` counts as
 * one), or undefined when the text is valid JSON within that depth.
 */
export function goJsonSyntaxError(text: string, maxDepth: number): string | undefined {
  try {
    scanDocument(text, maxDepth);
    return undefined;
  } catch (e) {
    if (e instanceof SyntaxFailure) return e.message;
    throw e;
  }
}

function scanDocument(text: string, maxDepth: number): void {
  const len = text.length;
  let i = 0;
  // Explicit stack of open containers: 1 = object, 2 = array.
  const stack: number[] = [];
  const fail = (context: string): never => {
    throw new SyntaxFailure(`invalid character ${quoteChar(firstUtf8Byte(text, i))} ${context}`, i);
  };
  const eof = (): never => {
    throw new SyntaxFailure('unexpected end of JSON input', i);
  };
  const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
  const skipSpace = () => {
    while (i < len && isSpace(text.charCodeAt(i))) i++;
  };
  const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
  const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

  const scanString = () => {
    i++; // opening quote
    for (;;) {
      if (i >= len) eof();
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c === 0x5c) {
        i++;
        if (i >= len) eof();
        const e = text.charCodeAt(i);
        if (e === 0x75) {
          i++;
          for (let k = 0; k < 4; k++) {
            if (i >= len) eof();
            if (!isHex(text.charCodeAt(i))) fail('in \\u hexadecimal character escape');
            i++;
          }
          continue;
        }
        if ('"\\/bfnrt'.indexOf(text[i]!) < 0) fail('in string escape code');
        i++;
        continue;
      }
      if (c < 0x20) fail('in string literal');
      i++;
    }
  };

  const scanLiteral = (word: string) => {
    // i is on the first letter, which already matched
    for (let k = 1; k < word.length; k++) {
      i++;
      if (i >= len) eof();
      if (text[i] !== word[k]) fail(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
    }
    i++;
  };

  const scanNumber = () => {
    if (text.charCodeAt(i) === 0x2d) {
      i++;
      if (i >= len) eof();
      if (!isDigit(text.charCodeAt(i))) fail('in numeric literal');
    }
    if (text.charCodeAt(i) === 0x30) i++;
    else while (i < len && isDigit(text.charCodeAt(i))) i++;
    if (i < len && text.charCodeAt(i) === 0x2e) {
      i++;
      if (i >= len) eof();
      if (!isDigit(text.charCodeAt(i))) fail('after decimal point in numeric literal');
      while (i < len && isDigit(text.charCodeAt(i))) i++;
    }
    if (i < len && (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45)) {
      i++;
      if (i < len && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
      if (i >= len) eof();
      if (!isDigit(text.charCodeAt(i))) fail('in exponent of numeric literal');
      while (i < len && isDigit(text.charCodeAt(i))) i++;
    }
  };

  const push = (kind: number) => {
    stack.push(kind);
    if (stack.length > maxDepth) fail('exceeded max depth');
    i++;
  };

  // Each loop turn reads one value (after which we handle what may follow it).
  skipSpace();
  for (;;) {
    if (i >= len) eof();
    const c = text.charCodeAt(i);
    let opened = false;
    if (c === 0x7b) {
      push(1);
      skipSpace();
      if (i >= len) eof();
      if (text.charCodeAt(i) === 0x7d) {
        stack.pop();
        i++;
      } else {
        if (text.charCodeAt(i) !== 0x22) fail('looking for beginning of object key string');
        scanString();
        skipSpace();
        if (i >= len) eof();
        if (text.charCodeAt(i) !== 0x3a) fail('after object key');
        i++;
        skipSpace();
        opened = true;
      }
    } else if (c === 0x5b) {
      push(2);
      skipSpace();
      if (i >= len) eof();
      if (text.charCodeAt(i) === 0x5d) {
        stack.pop();
        i++;
      } else opened = true;
    } else if (c === 0x22) scanString();
    else if (c === 0x2d || isDigit(c)) scanNumber();
    else if (c === 0x74) scanLiteral('true');
    else if (c === 0x66) scanLiteral('false');
    else if (c === 0x6e) scanLiteral('null');
    else fail('looking for beginning of value');
    if (opened) continue;

    // After a complete value: close containers or move to the next element.
    for (;;) {
      skipSpace();
      const top = stack[stack.length - 1];
      if (top === undefined) {
        if (i < len) fail('after top-level value');
        return;
      }
      if (i >= len) eof();
      const d = text.charCodeAt(i);
      if (top === 1) {
        if (d === 0x7d) {
          stack.pop();
          i++;
          continue;
        }
        if (d !== 0x2c) fail('after object key:value pair');
        i++;
        skipSpace();
        if (i >= len) eof();
        if (text.charCodeAt(i) !== 0x22) fail('looking for beginning of object key string');
        scanString();
        skipSpace();
        if (i >= len) eof();
        if (text.charCodeAt(i) !== 0x3a) fail('after object key');
        i++;
        skipSpace();
        break;
      }
      if (d === 0x5d) {
        stack.pop();
        i++;
        continue;
      }
      if (d !== 0x2c) fail('after array element');
      i++;
      skipSpace();
      break;
    }
  }
}
