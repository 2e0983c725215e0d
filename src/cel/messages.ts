// Evaluation errors in cel-go's words. A policy's denial message and a CRD rule's failure carry
// the error text to the user, so the engine's own texts for the errors both raise are rewritten
// here, at the one place errors leave src/cel (evaluate, and constants folded when compiling).

/** cel-go's operator function names (`_<_`), used in its "no such overload" texts. */
const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = {
  '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', '==': '_==_', '!=': '_!=_', '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_', in: '@in',
};

const RULES: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => string]> = [
  [/^Unsigned integer overflow\b.*$/, () => 'unsigned integer overflow'],
  [/^uint\(\) type error: cannot convert to uint$/, () => 'unsigned integer overflow'],
  [/^bool\(\) conversion error: invalid string value .*$/, () => "type conversion error from 'string' to 'bool'"],
  [/^The encoded data was not valid for encoding utf-8$/, () => 'invalid UTF-8 in bytes, cannot convert to string'],
  [/^integer overflow: .*$/, () => 'integer overflow'],
  [/^modulo by zero$/, () => 'modulus by zero'],
  [/^No such key: index out of bounds, index (-?\d+)\b.*$/, (m) => `index out of bounds: ${m[1]}`],
  [/^No such key: (.*)$/, (m) => `no such key: ${m[1]}`],
  [/^timestamp out of range$/, () => 'timestamp overflow'],
  [/^Optional value is not present$/, () => 'optional.none() dereference'],
  [/^Logical operator requires bool operands\b/, () => 'no such overload'],
  // Operands of types no overload takes (reached through dyn): cel-go names the operator only
  // when the left operand is null (its dispatcher has no receiver to ask).
  [/^no such overload: (\S+(?:<[^>]*>)?) (<=|>=|<|>|==|!=|\+|-|\*|\/|%|in) (.+)$/, (m) => (m[1] === 'null' || m[1] === 'dyn<null>' ? `no such overload: ${OPERATOR_FUNCTIONS[m[2] as string]}` : 'no such overload')],
  // A call whose dyn operands match no overload: cel-go's unary dispatch names the function, the
  // others do not.
  [/^found no matching overload for '(?:(.+)\.)?(\w+)\((.*)\)'$/, (m) => (operandCount(m[1], m[3] as string) === 1 ? `no such overload: ${m[2]}` : 'no such overload')],
];

/** Operands of a call as the engine prints it: the receiver and the top-level argument types. */
function operandCount(receiver: string | undefined, args: string): number {
  let depth = 0;
  let count = args.trim() === '' ? 0 : 1;
  for (const c of args) {
    if (c === '<' || c === '(') depth++;
    else if (c === '>' || c === ')') depth--;
    else if (c === ',' && depth === 0) count++;
  }
  return count + (receiver === undefined ? 0 : 1);
}

/** The text cel-go gives for an evaluation error the engine words differently; others unchanged. */
export function celGoEvalMessage(message: string): string {
  for (const [pattern, rewrite] of RULES) {
    const m = pattern.exec(message);
    if (m !== null) return rewrite(m);
  }
  return message;
}
