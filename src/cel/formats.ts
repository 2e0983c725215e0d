// The Kubernetes format library's named formats (apiserver/pkg/cel/library/format.go): each validates a
// string and lists the problems in kube's wording; MaxRegexSize feeds the cost of `validate`.
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isLabelValue, maxLenError, regexError, byteLength } from '../api/validation/names.ts';
import { parseRequestUri } from './url.ts';

export class NamedFormat {
  readonly celTypeName = 'kubernetes.NamedFormat';
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
    readonly maxRegexSize: number,
  ) {}

  equals(o: NamedFormat): boolean {
    return this.name === o.name;
  }

  toString(): string {
    return this.name;
  }
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRe = new RegExp(`^${dns1035LabelFmt}$`);
const dns1035LabelMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRe.test(value)) errs.push(regexError(dns1035LabelMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

/** apimachinery's maskTrailingDash: a generateName prefix may end in '-'. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** Go's time.Parse("2006-01-02", s): four-digit year, real month and day. */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1] as number;
  return d <= days;
}

/** kube-openapi strfmt's IsDateTime. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0] as string)) return false;
  const m = TIME_OF_DAY.exec(parts[1] as string);
  return m !== null && (m[1] as string) <= '23' && (m[2] as string) <= '59' && (m[3] as string) <= '59';
}

function uriProblems(s: string): string[] {
  try {
    parseRequestUri(s);
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

/** kube's ConstantFormats, by the name `format.<name>()` and `format.named(name)` use. */
export const NAMED_FORMATS: ReadonlyMap<string, NamedFormat> = new Map(
  [
    new NamedFormat('dns1123Label', (s) => isDns1123Label(s), 30),
    new NamedFormat('dns1123Subdomain', (s) => isDns1123Subdomain(s), 60),
    new NamedFormat('dns1035Label', (s) => isDns1035Label(s), 30),
    // apimachinery v0.32 words the malformed-key case as "a qualified name"; names.ts keeps the later wording.
    new NamedFormat('qualifiedName', (s) => isQualifiedName(s), 60),
    new NamedFormat('dns1123LabelPrefix', (s) => isDns1123Label(maskTrailingDash(s)), 30),
    new NamedFormat('dns1123SubdomainPrefix', (s) => isDns1123Subdomain(maskTrailingDash(s)), 60),
    new NamedFormat('dns1035LabelPrefix', (s) => isDns1035Label(maskTrailingDash(s)), 30),
    new NamedFormat('labelValue', (s) => isLabelValue(s), 40),
    new NamedFormat('uri', uriProblems, 1103),
    new NamedFormat('uuid', (s) => (UUID.test(s) ? [] : ['does not match the UUID format']), 70),
    new NamedFormat('byte', (s) => (BASE64.test(s) ? [] : ['invalid base64']), 84),
    new NamedFormat('date', (s) => (isDate(s) ? [] : ['invalid date']), 71),
    new NamedFormat('datetime', (s) => (isDateTime(s) ? [] : ['invalid datetime']), 71),
  ].map((f) => [f.name, f]),
);
