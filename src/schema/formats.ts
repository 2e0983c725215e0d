/**
 * The string formats kube-apiserver checks in structural schemas (the go-openapi strfmt set that
 * apiextensions keeps), each as a pure predicate. Format names are normalized by dropping `-`,
 * as go-openapi does, so `date-time` and `datetime` are the same format.
 */
import { isIPv4, isIPv6 } from 'node:net';

type FormatCheck = (s: string) => boolean;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const HOSTNAME = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){19}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$|^([0-9a-f]{4}\.){3}[0-9a-f]{4}$|^([0-9a-f]{4}\.){9}[0-9a-f]{4}$/i;
const ISBN10 = /^(?:[0-9]{9}X|[0-9]{10})$/;
const ISBN13 = /^(?:[0-9]{13})$/;
const CREDIT_CARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_COLOR = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const GO_DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$|^[-+]?0$/;
const SCALA_DURATION = /^\s*(\d+)\s*(d|day|days|h|hr|hrs|hour|hours|m|min|mins|minute|minutes|s|sec|secs|second|seconds|ms|milli|millis|millisecond|milliseconds|us|micro|micros|microsecond|microseconds|ns|nano|nanos|nanosecond|nanoseconds|w|wk|wks|week|weeks)\s*$/;
const QUANTITY = /^[+-]?(\d+\.?\d*|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?\d+))?$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

function isDate(s: string): boolean {
  const m = DATE.exec(s);
  return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * Date-times found valid lately. Objects carry the same few timestamps over and over (every update
 * validates its creationTimestamp and managedFields times again; writes within one second share
 * theirs), and a parse is a regular expression's match array and a Date each time.
 */
const validDateTimes = new Set<string>();
const VALID_DATE_TIMES_KEPT = 256;

function isDateTime(s: string): boolean {
  if (validDateTimes.has(s)) return true;
  const m = DATE_TIME.exec(s);
  if (!m) return false;
  if (!validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  const valid = Number(m[4]) < 24 && Number(m[5]) < 60 && (m[6] === undefined || Number(m[6]) < 60);
  if (valid) {
    if (validDateTimes.size >= VALID_DATE_TIMES_KEPT) validDateTimes.clear();
    validDateTimes.add(s);
  }
  return valid;
}

function isUri(s: string): boolean {
  // Like Go's url.ParseRequestURI: an absolute URI, or an absolute path.
  if (s.startsWith('/')) return !/\s/.test(s);
  try {
    const u = new URL(s);
    return u.protocol.length > 1;
  } catch {
    return false;
  }
}

function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const n = Number(bits);
  if (isIPv4(ip)) return n <= 32;
  if (isIPv6(ip)) return n <= 128;
  return false;
}

function isIsbn(s: string): boolean {
  const digits = s.replace(/[\s-]/g, '');
  return ISBN10.test(digits) || ISBN13.test(digits);
}

const checks: Readonly<Record<string, FormatCheck>> = {
  bsonobjectid: (s) => BSON_OBJECT_ID.test(s),
  uri: isUri,
  email: (s) => EMAIL.test(s),
  hostname: (s) => s.length <= 255 && HOSTNAME.test(s),
  ipv4: (s) => isIPv4(s),
  ipv6: (s) => isIPv6(s),
  cidr: isCidr,
  mac: (s) => MAC.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: isIsbn,
  isbn10: (s) => ISBN10.test(s.replace(/[\s-]/g, '')),
  isbn13: (s) => ISBN13.test(s.replace(/[\s-]/g, '')),
  creditcard: (s) => CREDIT_CARD.test(s.replace(/\D/g, '')),
  ssn: (s) => SSN.test(s),
  hexcolor: (s) => HEX_COLOR.test(s),
  rgbcolor: (s) => RGB_COLOR.test(s),
  byte: (s) => s.length % 4 === 0 && BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: (s) => GO_DURATION.test(s) || SCALA_DURATION.test(s),
  datetime: isDateTime,
  quantity: (s) => QUANTITY.test(s),
};

/**
 * Checks a string against a named format. Returns `undefined` when the format is not one the
 * server validates (such formats are ignored, as kube-apiserver strips them), else whether it matched.
 */
export function checkStringFormat(format: string, value: string): boolean | undefined {
  let check = checkByFormat.get(format);
  if (check === undefined) {
    const name = format.replaceAll('-', '');
    // Own names only: a schema's format `toString` is not a check.
    check = Object.hasOwn(checks, name) ? checks[name]! : null;
    // Formats come from schemas, so they are few; bounded all the same.
    if (checkByFormat.size >= 1024) checkByFormat.clear();
    checkByFormat.set(format, check);
  }
  return check ? check(value) : undefined;
}

/** Each format as schemas spell it (`date-time`, `datetime`), its check found once; null: not validated. */
const checkByFormat = new Map<string, FormatCheck | null>();
