/**
 * Label selectors: the string syntax of `?labelSelector=` (labels.Parse: `a=b`, `a==b`, `a!=b`,
 * `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`, comma-separated), and the object form of
 * metav1.LabelSelector (matchLabels, matchExpressions). Parse errors carry kube's texts; the list
 * handler sends them as 400 BadRequest with the parser's message unchanged.
 */
import { ApiError } from '../api/status-errors.ts';
import { fieldErrorBody } from '../api/field-errors.ts';
import { isLabelValue, isQualifiedName } from '../api/validation/names.ts';

/** The operators of a requirement, spelled as kube's `selection.Operator` values. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and deduplicated for set operators, as kube stores them. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector does not restrict anything (the empty string). */
  readonly empty: boolean;
  /** True if every requirement holds for `labels` (absent labels count as an empty set). */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The canonical string form (`a in (x,y),!b,c=d`), requirements sorted by key. */
  toString(): string;
}

// Label key and value rules are the ones metadata validation uses (src/api/validation/names.ts).

/** The problems with a label key (empty when valid), worded as kube's IsQualifiedName. */
export function labelKeyErrors(key: string): string[] {
  return isQualifiedName(key);
}

/** The problems with a label value (empty when valid), worded as kube's IsLabelValue. */
export function labelValueErrors(value: string): string[] {
  return isLabelValue(value);
}

class SelectorSyntaxError extends Error {}

/** A field.Invalid error's text; a string bad value is quoted, a value list printed as Go's `%#v`. */
function invalid(field: string, badValue: string | readonly string[], detail: string): string {
  if (typeof badValue === 'string') return `${field}: ${fieldErrorBody({ type: 'FieldValueInvalid', field, badValue, detail })}`;
  return `${field}: Invalid value: []string{${badValue.map((v) => JSON.stringify(v)).join(', ')}}: ${detail}`;
}

/** Builds a requirement as labels.NewRequirement does; `path` prefixes field names ('' for none). */
function newRequirement(key: string, operator: LabelOperator, values: readonly string[], path: string): LabelRequirement {
  const errs: string[] = [];
  const child = (name: string) => (path ? `${path}.${name}` : name);
  const keyErrs = labelKeyErrors(key);
  if (keyErrs.length > 0) errs.push(invalid(child('key'), key, keyErrs.join('; ')));
  const valuePath = child('values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(invalid(valuePath, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(invalid(valuePath, values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(invalid(valuePath, values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(invalid(valuePath, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) errs.push(invalid(`${valuePath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  values.forEach((v, i) => {
    const vErrs = labelValueErrors(v);
    if (vErrs.length > 0) errs.push(invalid(`${valuePath}[${i}][${key}]`, v, vErrs.join('; ')));
  });
  const unique = [...new Set(errs)];
  if (unique.length === 1) throw new SelectorSyntaxError(unique[0]);
  if (unique.length > 1) throw new SelectorSyntaxError(`[${unique.join(', ')}]`);
  return { key, operator, values };
}

/** strconv.ParseInt(s, 10, 64) as a bigint, or undefined. */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (value === undefined || r.values.length !== 1) return false;
      const actual = parseInt64(value);
      const bound = parseInt64(r.values[0]!);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  const sorted = [...r.values].sort();
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${sorted.join(',')})`;
    case 'gt':
      return `${r.key}>${sorted.join(',')}`;
    case 'lt':
      return `${r.key}<${sorted.join(',')}`;
    default:
      return `${r.key}${r.operator}${sorted.join(',')}`;
  }
}

function makeSelector(requirements: LabelRequirement[], matchesNothing = false): LabelSelector {
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    requirements: sorted,
    empty: !matchesNothing && sorted.length === 0,
    matches: (labels) => !matchesNothing && sorted.every((r) => requirementMatches(r, labels ?? {})),
    toString: () => sorted.map(requirementString).join(','),
  };
}

// ---- lexer and parser of the string form (labels.Parse) ----

type Tok = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'id' | 'in' | '<' | '!=' | 'notin' | '(';
interface Item {
  readonly tok: Tok;
  readonly lit: string;
}

const SYMBOL_TOKENS: Readonly<Record<string, Tok>> = { ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', '<': '<', '!=': '!=', '(': '(' };
const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => c === '=' || c === '!' || c === '(' || c === ')' || c === ',' || c === '>' || c === '<';

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    // Go's lexer reads a NUL byte as the end of input.
    if (pos >= s.length || s[pos] === '\0') {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(s[pos]!)) {
      let buf = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        const next = buf + s[pos];
        const tok = SYMBOL_TOKENS[next];
        if (tok) last = { tok, lit: next };
        else if (last) break;
        buf = next;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buf}'` });
    } else {
      let buf = '';
      while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) {
        const c = s[pos++]!;
        if (c === '\0') break;
        buf += c;
      }
      items.push({ tok: buf === 'in' ? 'in' : buf === 'notin' ? 'notin' : 'id', lit: buf });
    }
  }
}

class Parser {
  private position = 0;
  constructor(private readonly items: readonly Item[]) {}

  /** In a values context the keywords `in` and `notin` read as identifiers. */
  private peek(values: boolean): Item {
    const it = this.items[this.position]!;
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'id', lit: it.lit } : it;
  }

  private next(values: boolean): Item {
    const it = this.peek(values);
    this.position++;
    return it;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek(true);
      if (tok === 'id' || tok === '!') {
        try {
          reqs.push(this.parseRequirement());
        } catch (e) {
          if (e instanceof SelectorSyntaxError) throw new SelectorSyntaxError(`unable to parse requirement: ${e.message}`);
          throw e;
        }
        const after = this.next(true);
        if (after.tok === 'eos') return reqs;
        if (after.tok === ',') {
          const t2 = this.peek(true);
          if (t2.tok !== 'id' && t2.tok !== '!') throw new SelectorSyntaxError(`found '${t2.lit}', expected: identifier after ','`);
        } else {
          throw new SelectorSyntaxError(`found '${after.lit}', expected: ',' or 'end of string'`);
        }
      } else if (tok === 'eos') {
        return reqs;
      } else {
        throw new SelectorSyntaxError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let it = this.next(true);
    let operator: LabelOperator | undefined;
    if (it.tok === '!') {
      operator = '!';
      it = this.next(true);
    }
    if (it.tok !== 'id') throw new SelectorSyntaxError(`found '${it.lit}', expected: identifier`);
    const key = it.lit;
    const keyErrs = labelKeyErrors(key);
    if (keyErrs.length > 0) throw new SelectorSyntaxError(invalid('<nil>', key, keyErrs.join('; ')));
    const la = this.peek(true).tok;
    if ((la === 'eos' || la === ',') && operator !== '!') operator = 'exists';
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, [], '');
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort(), '');
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.next(false);
    switch (tok) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return tok;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new SelectorSyntaxError(`found '${lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.next(true);
    if (open.tok !== '(') throw new SelectorSyntaxError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.peek(true);
    if (tok === 'id' || tok === ',') {
      const set = this.parseIdentifiersList();
      if (this.next(true).tok !== ')') throw new SelectorSyntaxError(`found '${lit}', expected: ')'`);
      return set;
    }
    if (tok === ')') {
      this.next(true);
      return new Set(['']);
    }
    throw new SelectorSyntaxError(`found '${lit}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const set = new Set<string>();
    for (;;) {
      const { tok, lit } = this.next(true);
      if (tok === 'id') {
        set.add(lit);
        const t2 = this.peek(true);
        if (t2.tok === ',') continue;
        if (t2.tok === ')') return set;
        throw new SelectorSyntaxError(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (tok === ',') {
        if (set.size === 0) set.add('');
        const t2 = this.peek(true).tok;
        if (t2 === ')') {
          set.add('');
          return set;
        }
        if (t2 === ',') set.add('');
      } else {
        throw new SelectorSyntaxError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const la = this.peek(true).tok;
    if (la === 'eos' || la === ',') return new Set(['']);
    const { tok, lit } = this.next(true);
    if (tok === 'id') return new Set([lit]);
    throw new SelectorSyntaxError(`found '${lit}', expected: identifier`);
  }
}

/**
 * Parses the string form of a label selector (`""` selects everything). Throws ApiError 400
 * BadRequest with kube's parser message.
 */
export function parseLabelSelector(s: string): LabelSelector {
  try {
    return makeSelector(new Parser(lex(s)).parse());
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw new ApiError(400, 'BadRequest', e.message);
    throw e;
  }
}

/** The metav1.LabelSelector object form. */
export interface LabelSelectorObject {
  readonly matchLabels?: Readonly<Record<string, string>> | null;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] | null }[] | null;
}

const OBJECT_OPERATORS: Readonly<Record<string, LabelOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * Converts a metav1.LabelSelector (as LabelSelectorAsSelector does): null/undefined selects
 * nothing, `{}` selects everything. Throws ApiError 400 with kube's text for bad keys, values
 * or operators.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return makeSelector([], true);
  const reqs: LabelRequirement[] = [];
  try {
    for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push(newRequirement(k, '=', [v], ''));
    for (const expr of sel.matchExpressions ?? []) {
      const op = OBJECT_OPERATORS[expr.operator];
      if (!op) throw new SelectorSyntaxError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
      reqs.push(newRequirement(expr.key, op, [...(expr.values ?? [])], ''));
    }
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw new ApiError(400, 'BadRequest', e.message);
    throw e;
  }
  return makeSelector(reqs);
}
