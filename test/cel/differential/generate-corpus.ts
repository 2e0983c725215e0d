// Generates the differential corpus (JSON lines on stdout): hand-written expressions per library
// and language area, plus programmatic sweeps (conversions over value grids, operators over type
// pairs, costs over schema sizes). Deterministic: the same corpus every run.
// Run through regenerate.sh, which also runs the Go reference over it.

interface Entry {
  id: string;
  expr: string;
  env?: 'new' | 'stored';
  vars?: Record<string, string>;
  schema?: unknown;
  bindings?: Record<string, unknown>;
  costLimit?: number;
}

const out: Entry[] = [];
const seen = new Set<string>();

function add(group: string, expr: string, extra: Omit<Entry, 'id' | 'expr'> = {}): void {
  const key = JSON.stringify([expr, extra]);
  if (seen.has(key)) return;
  seen.add(key);
  const n = out.filter((e) => e.id.startsWith(`${group}/`)).length;
  out.push({ id: `${group}/${n}`, expr, ...extra });
}

function each(group: string, exprs: readonly string[], extra: Omit<Entry, 'id' | 'expr'> = {}): void {
  for (const e of exprs) add(group, e, extra);
}

// Tagged values for bindings (see go-reference/main.go).
const T = {
  int: (n: number | bigint | string) => ({ t: 'int', v: String(n) }),
  uint: (n: number | bigint | string) => ({ t: 'uint', v: String(n) }),
  double: (n: number | string) => ({ t: 'double', v: String(n) }),
  str: (s: string) => ({ t: 'string', v: s }),
  bool: (b: boolean) => ({ t: 'bool', v: b }),
  bytes: (b: string) => ({ t: 'bytes', v: Buffer.from(b, 'utf8').toString('base64') }),
  list: (...v: unknown[]) => ({ t: 'list', v }),
  map: (...pairs: Array<[unknown, unknown]>) => ({ t: 'map', v: pairs }),
  ts: (s: string) => ({ t: 'timestamp', v: s }),
  dur: (nanos: bigint | number) => ({ t: 'duration', v: String(nanos) }),
  null: () => ({ t: 'null' }),
};

// ---- literals, arithmetic, overflow ---------------------------------------------------------
each('literal', [
  '1', '-1', '0x10', '0X1F', '0xff', '0xFF', '-0x10', '1u', '0x1u', '1.0', '1e3', '1.5e-3', '.5', '1.', '"abc"', "'abc'",
  '"""multi\nline"""', "r'\\n'", "R'\\d'", '"\\u00e9"', '"\\U0001F600"', '"\\x41"', '"\\101"', "b'abc'", "b'\\xff'", "b'\\377'",
  'true', 'false', 'null', '9223372036854775807', '-9223372036854775808', '9223372036854775808', '-9223372036854775809',
  '18446744073709551615u', '18446744073709551616u', '0x7fffffffffffffff', '0x8000000000000000', '1e308', '1e309', '-1e309',
  '"\\a\\b\\f\\n\\r\\t\\v\\\\\\"\\\'"', "'\\\\'", '"\\q"', '"unterminated', '0777', '007', '1_000', '[]', '{}', '[1, 2, 3]',
  '{"a": 1}', '{1: "a"}', '{true: 1}', '{1u: 1}', '{1.5: 1}', '{null: 1}', '{"a": 1, "a": 2}', '{1: 1, 1u: 2}', '{[1]: 1}',
  '[1, "a"]', '[1, 1.0]', '[1, 1u]', '[[1], ["a"]]', '[{"a": 1}, {"a": "b"}]', '{"a": 1, "b": "x"}', '{"a": 1, 1: 1}',
  '[null, 1]', '[1, null]', '[dyn(1), "a"]', '{"a": dyn(1), "b": "x"}', '[[], [1]]', '[{}, {"a": 1}]', '[1.0, 2]',
  '[optional.of(1), optional.none()]', '[b"a", "a"]', '[duration("1s"), timestamp(0)]',
]);

const ints = ['0', '1', '-1', '7', '-7', '3', '9223372036854775807', '-9223372036854775808', '2', '-2'];
for (const op of ['+', '-', '*', '/', '%']) for (const a of ints) for (const b of ['0', '1', '-1', '2', '3', '-7', '9223372036854775807']) add('int-arith', `${a} ${op} ${b}`);
const uints = ['0u', '1u', '2u', '18446744073709551615u', '7u'];
for (const op of ['+', '-', '*', '/', '%']) for (const a of uints) for (const b of uints) add('uint-arith', `${a} ${op} ${b}`);
const doubles = ['0.0', '1.5', '-1.5', '1e308', '-0.0', '2.0', '0.1', '3.0'];
for (const op of ['+', '-', '*', '/']) for (const a of doubles) for (const b of doubles) add('double-arith', `${a} ${op} ${b}`);
each('double-arith', ['1.0 % 2.0', '-(-9223372036854775808)', '-9223372036854775807 - 1', '-(9223372036854775807)', '--1', '---1', '-(-1u)', '-1u', '0.1 + 0.2', '1.0 / 0.0 == 1.0 / 0.0', '(0.0/0.0) == (0.0/0.0)', 'double("NaN") != double("NaN")', '1/0', '1%0', '1u/0u', '1u%0u', '-9223372036854775808 / -1', '-9223372036854775808 % -1']);

// ---- equality and comparison across types -------------------------------------------------
const cmpValues = ['1', '1u', '1.0', '2', '2u', '0.5', '"a"', 'b"a"', 'true', 'null', '[1]', '{"a": 1}', 'duration("1s")', 'timestamp(1)', 'dyn(1)', 'dyn(1u)', 'dyn(1.0)', 'dyn(2.5)', 'dyn("a")', 'dyn(null)', 'int', 'type(1)', 'optional.of(1)'];
for (const op of ['==', '!=', '<', '<=', '>', '>=']) for (const a of cmpValues) for (const b of cmpValues) if ((op === '==' || op === '!=') || a.startsWith('dyn') || b.startsWith('dyn') || a === b || /^[\d.u]+$/.test(a) && /^[\d.u]+$/.test(b)) add('compare', `${a} ${op} ${b}`);
each('compare', [
  '[1, 2] == [1, 2]', '[1, 2] == [2, 1]', '{"a": 1} == {"a": 1}', '{"a": 1, "b": 2} == {"b": 2, "a": 1}', '[dyn(1)] == [dyn(1.0)]',
  '{dyn(1): 1} == {dyn(1u): 1}', 'dyn({1: "a"})[1.0]', 'dyn({1: "a"})[1u]', 'dyn({1u: "a"})[1]', '{1: "a"}[dyn(1.0)]', 'dyn([1,2])[1u]',
  'dyn([1,2])[1.0]', 'dyn([1,2])[1.5]', '1 in [1.0]', 'dyn(1) in [1.0, 2.0]', 'dyn(1.0) in [1, 2]', 'dyn(2u) in [1, 2]', '1 in {1: 2}',
  'dyn(1.0) in {1: 2}', '"a" in {"a": 1}', '"b" in {"a": 1}', '"a" in ["a"]', 'b"x" < b"y"', 'b"\\xff" > b"a"', '"a" < "b"', '"é" > "z"',
  'true > false', 'false < true', 'null == null', 'dyn(null) == null', 'duration("1s") < duration("2s")', 'timestamp(1) < timestamp(2)',
  'double("NaN") < 1.0', 'double("NaN") > 1', '9223372036854775807 < 9223372036854775808.0', '18446744073709551615u > 1.0e19',
  '-1 < 0u', 'dyn(-1) < 0u', 'dyn(1) < dyn(2.5)', 'dyn("a") < dyn(1)', '[1] < [2]', '{"a": 1} < {"a": 2}', 'type(1) == int', 'type(1u) == uint',
  'type(1.0) == double', 'type("a") == string', 'type(b"a") == bytes', 'type(true) == bool', 'type(null) == null_type', 'type([]) == list',
  'type({}) == map', 'type(int) == type', 'type(duration("1s")) == google.protobuf.Duration', 'type(timestamp(0)) == google.protobuf.Timestamp',
  'type(optional.none())', 'type(1) == type(dyn(1))', 'type(dyn(1.0))', 'dyn(type(1)) == int', 'int == type(1)', 'string(int)', 'type(type)',
]);

// ---- conversions --------------------------------------------------------------------------
const convArgs = ['0', '1', '-1', '9223372036854775807', '-9223372036854775808', '1u', '18446744073709551615u', '1.5', '-1.5', '-0.5', '0.5', '1e19', '-1e19',
  '9.223372036854775807e18', '9.2233720368547748e18', '1.8446744073709552e19', '1e100', 'double("NaN")', 'double("Inf")', 'double("-Inf")', '123456789.0', '1e-7', '1e21', '100.0', '-0.0',
  '"1"', '"-1"', '""', '" 1"', '"1.5"', '"0x10"', '"1e3"', '"1_000"', '"9223372036854775808"', '"-9223372036854775809"', '"18446744073709551616"', '"+1"', '"NaN"', '"inf"', '"Infinity"', '"-inf"', '"1e400"', '".5"', '"5."', '"abc"', '"true"', '"TRUE"', '"True"', '"t"', '"1"', '"f"', '"0"', '"false"', '"FALSE"', '"fAlse"',
  'true', 'false', 'b"abc"', 'b"\\xff"', 'null', 'duration("1.5s")', 'duration("-1ms")', 'timestamp("2023-01-01T00:00:00Z")', 'timestamp("2023-01-01T00:00:00.123456789Z")', '[1]', '{"a": 1}'];
for (const f of ['int', 'uint', 'double', 'string', 'bool', 'bytes', 'dyn', 'type']) for (const a of convArgs) add('convert', `${f}(${a})`);
for (const f of ['int', 'uint', 'double', 'string', 'bool', 'bytes']) for (const a of convArgs) add('convert-dyn', `${f}(dyn(${a}))`);

// ---- strings (core and ext v2) ---------------------------------------------------------------
const strs = ["''", "'abc'", "'héllo wörld'", "'😀a😀'", "'  padded \\t\\n'", "'a,b,,c'", "'ABC def'", "'\\u00a0x\\u00a0'", "'\\u0085x'", "'ﬀ'", "'İ'"];
for (const s of strs) {
  each('string', [`size(${s})`, `${s}.size()`, `${s}.lowerAscii()`, `${s}.upperAscii()`, `${s}.trim()`, `${s}.charAt(0)`, `${s}.charAt(1)`, `${s}.charAt(${s}.size())`, `${s}.charAt(-1)`,
    `${s}.charAt(100)`, `${s}.indexOf('')`, `${s}.indexOf('a')`, `${s}.indexOf('😀')`, `${s}.indexOf('a', 1)`, `${s}.indexOf('a', 100)`, `${s}.indexOf('a', -1)`, `${s}.lastIndexOf('')`, `${s}.lastIndexOf('a')`,
    `${s}.lastIndexOf('a', 0)`, `${s}.lastIndexOf('a', 100)`, `${s}.substring(1)`, `${s}.substring(1, 2)`, `${s}.substring(2, 1)`, `${s}.substring(0, 100)`, `${s}.substring(-1)`, `${s}.split(',')`, `${s}.split('')`,
    `${s}.split(',', 2)`, `${s}.split(',', 0)`, `${s}.split(',', -1)`, `${s}.split(',', 1)`, `${s}.replace('a', 'X')`, `${s}.replace('', '_')`, `${s}.replace('a', 'X', 1)`, `${s}.replace('', '_', 2)`, `${s}.replace('a', 'X', 0)`, `${s}.replace('a', 'X', -1)`,
    `${s}.contains('a')`, `${s}.startsWith('a')`, `${s}.endsWith('c')`, `${s}.matches('^a')`, `${s}.reverse()`, `${s} + ${s}`, `strings.quote(${s})`, `${s}.indexOf('')`, `${s}[0]`, `bytes(${s})`, `size(bytes(${s}))`]);
}
each('string', [
  "['a', 'b'].join()", "['a', 'b'].join('-')", "[].join('-')", "['a', 1].join()", "dyn(['a', 1]).join()", "'abc'.join()", "'a'.repeat(3)", "strings.quote('\\x00\\x7f')", "strings.quote('\"\\\\')",
  "strings.quote(b'\\xff')", "'%s'.format(['a'])", "'%s and %s'.format(['a', 1])", "'%d'.format([1])", "'%d'.format(['x'])", "'%d'.format([1.5])", "'%d'.format([1u])", "'%f'.format([1.5])", "'%.2f'.format([3.14159])",
  "'%.0f'.format([2.5])", "'%.0f'.format([3.5])", "'%e'.format([1234.5678])", "'%.3e'.format([0.00012])", "'%b'.format([5])", "'%b'.format([true])", "'%o'.format([8])", "'%x'.format([255])", "'%X'.format([255])", "'%x'.format(['hi'])",
  "'%X'.format([b'\\x01\\xff'])", "'%x'.format([-255])", "'%s'.format([[1, 'a']])", "'%s'.format([{'b': 1, 'a': 2}])", "'%s'.format([null])", "'%s'.format([1.0])", "'%s'.format([1e21])", "'%s'.format([0.000001])", "'%s'.format([duration('1m')])",
  "'%s'.format([timestamp('2023-01-01T00:00:00Z')])", "'%s'.format([int])", "'%s'.format([b'abc'])", "'%s'.format([true])", "'%s'.format([1u])", "'%%'.format([])", "'%'.format([])", "'%z'.format([1])", "'%s %s'.format(['a'])", "'%s'.format(['a', 'b'])",
  "'%.f'.format([1.0])", "'%5d'.format([1])", "'%d'.format([double('NaN')])", "'%f'.format([double('Inf')])", "'%f'.format([1])", "'%e'.format([1])", "'%f'.format(['x'])", "'%s'.format([optional.of(1)])", "'%s'.format([[1.5, 2u]])", "'%.3f'.format([-0.0005])",
  "'%s'.format([dyn(1)])", "'%d'.format([dyn('x')])", "'%d %s'.format(x)", "'abc'.format([])", "'ab'.lowerAscii(1)", "'a' + 1", "'a' * 2", "'abc'[1]", "'abc'.size() == 3", "'😀'.size()", "size('😀')", "size(b'😀')",
  "'abc' < 'abd'", "'Z' < 'a'", "'\\u00e9' == '\\u0065\\u0301'", "'abc'.contains('')", "''.startsWith('')", "'abc'.endsWith('')", "'a\\u0000b'.size()", "'x'.indexOf('x', 1)", "'x'.lastIndexOf('x', -1)", "'héllo'.indexOf('l')", "'héllo'.lastIndexOf('l')", "'héllo'.substring(1, 3)",
  "'héllo'.charAt(1)", "'a😀b'.indexOf('b')", "'a😀b'.substring(2)", "'a😀b'.charAt(1)", "'abc'.substring(3)", "'abc'.substring(4)", "'abc'.substring(1, 1)", "'  x  '.trim().size()", "'\\u2028x\\u3000'.trim()", "'\\u200bx'.trim()",
]);

// ---- regex ------------------------------------------------------------------------------------
each('regex', [
  "'abc'.matches('b')", "'abc'.matches('^b')", "'abc'.matches('[')", "'abc'.matches('(?i)ABC')", "'abc'.matches('a(?=b)')", "'abc'.matches('(a)\\\\1')", "matches('abc', 'c$')", "matches('abc', '[')",
  "'abc'.matches(x)", "'123-456'.find('[0-9]+')", "'abc'.find('x')", "'abc'.find('[')", "'a1b22c333'.findAll('[0-9]+')", "'a1b22c333'.findAll('[0-9]+', 2)", "'a1b22c333'.findAll('[0-9]+', 0)", "'a1b22c333'.findAll('[0-9]+', -1)",
  "'abc'.findAll('')", "'héllo'.findAll('.')", "'abc'.findAll('[')", "'aaa'.find('a*?')", "'x'.matches('\\\\p{L}')", "'x'.matches('\\\\pL')", "'x'.matches('[[:alpha:]]')", "'ab'.matches('a{1001}')", "'ab'.matches('a{2,1}')",
  "'ab'.matches('(?P<n>a)')", "'ab'.matches('(?<n>a)')", "'a\\nb'.matches('^b')", "'a\\nb'.matches('(?m)^b')", "'\\u00e9'.matches('^.$')", "'abc'.find(x)", "'abc'.findAll(x, 1)", "'abc'.matches('\\\\d')", "'a.c'.matches('a\\\\.c')",
  "'abcabc'.findAll('b', 1)", "'abcabc'.findAll('b', 5)", "['a1', 'b'].filter(s, s.matches('[0-9]'))", "'ab'.matches('a|')", "'ab'.matches('*')", "'ab'.matches('\\\\b')", "'ab'.matches('\\\\Z')", "'ab'.matches('\\\\z')",
], { vars: { x: 'string' }, bindings: { x: T.str('[a-c]+') } });
each('regex', ["dyn('abc').matches('[')", "'abc'.matches(dyn('['))", "x.matches('b')"], { vars: { x: 'dyn' }, bindings: { x: T.str('abc') } });

// ---- lists library ------------------------------------------------------------------------------
const lists = ['[]', '[1]', '[3, 1, 2]', '[1, 2, 3]', '[1u, 2u]', '[1.5, 0.5]', "['b', 'a']", "['a', 'b']", '[true, false]', '[false, true]', "[b'a', b'b']",
  "[duration('1m'), duration('1s')]", "[timestamp(2), timestamp(1)]", '[[1], [2]]', '[9223372036854775807, 1]', '[1, 1]', '[dyn(1), dyn(2.5)]', "[dyn(1), dyn('a')]", '[18446744073709551615u, 1u]', '[-1.0, double("NaN")]'];
for (const l of lists) for (const f of ['isSorted()', 'sum()', 'min()', 'max()', 'indexOf(1)', 'lastIndexOf(1)', 'size()']) add('lists', `${l}.${f}`);
each('lists', ["[1, 2, 1].indexOf(1)", "[1, 2, 1].lastIndexOf(1)", "['a', 'b', 'a'].lastIndexOf('a')", "[1.0, 2.0].indexOf(2.0)", "[1, 2].indexOf(2.0)", "[[1], [2]].indexOf([2])", "[1, 2].indexOf('a')",
  "dyn([1, 'a']).indexOf('a')", "[{'a': 1}].indexOf({'a': 1})", "size([1, 2])", "[1, 2] + [3]", "[1] + ['a']", "dyn([1]) + ['a']", "[1, 2][0]", "[1, 2][2]", "[1, 2][-1]", "[1, 2][dyn(1u)]",
  "[1, 2, 3].map(x, x * 2).sum()", "[duration('1s'), duration('2s')].sum() == duration('3s')", "[timestamp(1)].sum()", "['a'].sum()", "[[1]].sum()", "[b'a'].min()", "[9223372036854775807, 1].sum()", "[-9223372036854775808, -1].sum()",
  "[18446744073709551615u, 1u].sum()", "[1.0, 1e308, 1e308].sum()", "dyn([1, 2.5]).sum()", "dyn([1, 'a']).min()", "dyn([1, 2u]).max()", "[].min()", "[].max()", "dyn([]).sum()", "[1, 2].slice(0, 1)", "[3,1].sort()", "[[1, 2], [3]].flatten()",
  "sets.contains([1, 2, 3], [1, 2])", "sets.contains([1, 2], [3])", "sets.contains([], [])", "sets.contains([1], [])", "sets.contains([1, 2.0], [1u])", "sets.contains([[1]], [[1]])", "sets.contains(['a'], ['a', 'a'])",
  "sets.equivalent([1, 2], [2, 1, 1])", "sets.equivalent([1], [1, 2])", "sets.equivalent([1, 1u, 1.0], [1])", "sets.equivalent([], [])", "sets.intersects([1, 2], [2, 3])", "sets.intersects([1], [2])", "sets.intersects([], [1])",
  "sets.intersects([1.0], [1])", "sets.contains([1], ['a'])", "sets.contains(dyn([1]), ['a'])", "sets.equivalent(['a'], [1])", "sets.intersects([{'a': 1}], [{'a': 1}])",
]);

// ---- macros and comprehensions ---------------------------------------------------------------
each('macro', [
  '[1, 2, 3].all(x, x > 0)', '[1, 2, 3].all(x, x > 1)', '[1, 2, 3].exists(x, x > 2)', '[1, 2, 3].exists_one(x, x > 1)', '[1, 2, 3].exists_one(x, x > 2)', '[1, 2, 3].map(x, x * x)',
  '[1, 2, 3].map(x, x > 1, x * 10)', '[1, 2, 3].filter(x, x % 2 == 1)', '{"a": 1, "b": 2}.all(k, k.size() == 1)', '{"a": 1, "b": 2}.map(k, k + "!")', '{"a": 1}.filter(k, k == "a")', '{"a": 1}.exists(k, k == "b")',
  '[1, 0].all(x, 1 / x > 0)', '[0, 1].exists(x, 1 / x > 0)', '[1, 0].exists(x, 1 / x > 0)', '[0, 1].all(x, x > 0 && 1 / x > 0)', '[1, 2].exists_one(x, 1 / (x - 1) > 0)', '[].all(x, false)', '[].exists(x, true)',
  '[1, 2].all(x, [3, 4].all(y, x < y))', '[1, 2].map(x, [x, x]).size()', 'has({"a": 1}.a)', 'has({"a": 1}.b)', 'has(x.a)', 'has(x.a.b)', 'has(1.a)', 'has(x)', 'has(x["a"])', '[1, 2].map(x, y)',
  '[1, 2].all(x, x)', '[1, "a"].all(x, x > 0)', 'dyn([1, "a"]).all(x, x > 0)', 'dyn([1, "a"]).exists(x, x == "a")', 'dyn([0, "a"]).exists(x, x > 0)', '[[1, 2], [3]].map(l, l.map(x, x + 1))', '[1,2,3].map(x, x).map(y, y)',
  '{"a": 1}.map(k, v, v)', '[1, 2].exists_one(x, x > 0, x < 2)', '[1, 2].all(x, y, x > 0)', '[1, 2].filter(x, x > 1).size() == 1', 'x.all(k, x[k] > 0)', '[1, 2, 3].exists(x, x == 2) ? "yes" : "no"',
  'cel.bind(a, 1, a + 1)', 'cel.bind(a, [1, 2], a.map(x, x * 2))', 'cel.bind(a, 1, cel.bind(b, 2, a + b))', 'optional.of(1).map(x, x + 1)',
], { vars: { x: 'map(string, int)' }, bindings: { x: T.map([T.str('a'), T.int(1)]) } });
const twoVar = [
  '[1, 2, 3].all(i, v, v > i)', '[1, 2, 3].exists(i, v, i == 2 && v == 3)', '[1, 2, 3].existsOne(i, v, v > 2)', '[1, 2, 3].existsOne(x, x > 2)', '{"a": 1, "b": 2}.all(k, v, v > 0)', '{"a": 1}.exists(k, v, k == "a" && v == 1)',
  '[1, 2].transformList(i, v, v * 2)', '[1, 2, 3].transformList(i, v, i > 0, v * 2)', '{"a": 1}.transformList(k, v, k + string(v))', '[1, 2].transformMap(i, v, v * 10)', '{"a": 1, "b": 2}.transformMap(k, v, v + 1)',
  '{"a": 1, "b": 2}.transformMap(k, v, v > 1, v)', '[1, 2].transformMapEntry(i, v, {string(v): i})', '{"a": 1}.transformMapEntry(k, v, {v: k})', '[1, 1].transformMapEntry(i, v, {v: i})', '{"a": 1}.transformMapEntry(k, v, {k: v, "z": 1})',
  '[1, 2].all(i, i, i > 0)', '[1, 2].all(i, v, v)', '[1, 2].transformList(i, v, i, v)', '{"a": 1}.transformMap(k, v, k == "a", v * 2)', '[[1], [2]].all(i, l, l.all(j, x, x > i))', '[1, 2].exists_one(i, v, v == 1)',
  '[1, 2, 3].transformList(i, v, v % 2 == 1, v).sum()', '{"a": 1}.transformList(k, v, v).size()', '[1, 2].existsOne(i, v, 1 / (v - 1) > 0)', 'cel.bind(x, 1, x)',
];
each('twovar', twoVar);
each('twovar-stored', twoVar, { env: 'stored' });

// ---- optionals ---------------------------------------------------------------------------------
each('optional', [
  'optional.of(1).hasValue()', 'optional.none().hasValue()', 'optional.of(1).value()', 'optional.none().value()', 'optional.none().orValue(2)', 'optional.of(1).orValue(2)', 'optional.none().or(optional.of(3)).value()',
  'optional.ofNonZeroValue(0).hasValue()', 'optional.ofNonZeroValue("").hasValue()', 'optional.ofNonZeroValue([]).hasValue()', 'optional.ofNonZeroValue({}).hasValue()', 'optional.ofNonZeroValue(false).hasValue()', 'optional.ofNonZeroValue(0.0).hasValue()',
  'optional.ofNonZeroValue(0u).hasValue()', 'optional.ofNonZeroValue(b"").hasValue()', 'optional.ofNonZeroValue(null).hasValue()', 'optional.ofNonZeroValue(duration("0s")).hasValue()', 'optional.ofNonZeroValue(timestamp(0)).hasValue()', 'optional.ofNonZeroValue(1).value()',
  'x.?a.orValue(0)', 'x.?z.orValue(0)', 'x.?a.hasValue()', 'x[?"a"].value()', 'x[?"z"].hasValue()', '[1, 2][?1].value()', '[1, 2][?5].hasValue()', '[1, 2][?-1].hasValue()', '{"k": 1}.?k', '{"k": 1}.?j', '{?"a": optional.of(1)}',
  '{?"a": optional.none()}', '{?"a": x.?z, "b": 2}', '[?optional.of(1), ?optional.none(), 3]', '[?x.?a]', '{?"a": 1}', '[?1]', 'optional.of(1) == optional.of(1)', 'optional.of(1) == optional.of(1.0)', 'optional.none() == optional.none()',
  'optional.of(1) != optional.none()', 'x.?a.?b', 'optional.of(x).?a.value()', 'optional.of({"a": {"b": 1}}).?a.?b.value()', 'optional.none().?a.hasValue()', 'x.?a.optMap(v, v + 1).value()', 'x.?z.optMap(v, v + 1).hasValue()',
  'x.?a.optFlatMap(v, optional.of(v * 2)).value()', 'optional.of(1).value() + 1', 'type(optional.of(1))', 'optional.of(optional.none()).value().hasValue()', 'optional.none().or(optional.none()).hasValue()', 'optional.of(1).or(optional.of(2)).value()',
  'x.?a.or(x.?b).value()', 'optional.unwrap([optional.of(1), optional.none()])', '[optional.of(1), optional.none()].unwrapOpt()', 'optional.none().orValue(optional.of(1)).value()', 'optional.of(dyn(1)).value() == 1',
], { vars: { x: 'map(string, int)' }, bindings: { x: T.map([T.str('a'), T.int(1)], [T.str('b'), T.int(2)]) } });
// optional_type as a value and an identifier; selection on optionals whose element type is free
// (optional.none()) or whose value is absent, and what cel-go charges when the operand of a
// relative attribute fails.
each('optional', [
  'type(optional.of(1)) == optional_type', 'type(dyn(optional.of(1)))', 'type(optional.of(1)) == type(optional.none())', 'type(type(optional.of(1)))', 'optional.none().?a.b', 'optional.none().?a',
  "optional.none()[?'a']", 'optional.none().a', "optional.of({'a': 1}).a", "optional.of({'a': 1}).a.b", 'optional.none().a.b', "optional.of({'a': 1})['a']", "optional.none()['a']", 'optional.none().a.orValue(5)',
  '[].a', '{}.a', 'optional.none().orValue(1) + 1', 'optional.none().value().a', "optional.of({'a': {'b': 1}}).a.b", "optional.of({'a': {'b': 1}}).?a.b", 'dyn(optional.none()).a', "optional.ofNonZeroValue({'a':1}).a",
  '[optional.none().?a.orValue(1)]', 'optional.none().?a.orValue(1) + 1', "{'a': 1}.b", "[1, 2][5]", "int('x').a", "[[1]][0][1]",
]);

// ---- timestamps and durations ----------------------------------------------------------------
const tsStrs = ['2023-01-01T00:00:00Z', '2023-01-01T00:00:00.123456789Z', '2023-02-30T00:00:00Z', '2023-13-01T00:00:00Z', '2023-01-01T24:00:00Z', '2023-01-01T00:00:60Z', '2023-01-01T10:00:00+02:00',
  '2023-01-01T10:00:00-07:30', '2023-01-01 00:00:00Z', '2023-01-01T00:00:00', '2023-01-01', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999999Z', '0000-12-31T23:59:59Z', '10000-01-01T00:00:00Z', '2024-02-29T12:00:00Z',
  '2023-01-01T00:00:00.1Z', '2023-01-01T00:00:00,5Z', '2023-01-01t00:00:00z', '2023-01-01T00:00:00+24:00', 'bad', '', '1970-01-01T00:00:00.000000001Z'];
for (const s of tsStrs) {
  add('timestamp', `timestamp('${s}')`);
  add('timestamp', `string(timestamp('${s}'))`);
  add('timestamp-dyn', `timestamp(x)`, { vars: { x: 'string' }, bindings: { x: T.str(s) } });
  add('timestamp-dyn', `string(timestamp(x))`, { vars: { x: 'string' }, bindings: { x: T.str(s) } });
  add('timestamp-dyn', `int(timestamp(x))`, { vars: { x: 'string' }, bindings: { x: T.str(s) } });
}
const durStrs = ['1s', '1.5s', '-1ms', '1h30m', '1m1s', '0', '0s', '1us', '1µs', '1ns', '1.000000001s', '-0.5s', '1d', '1', 's', '', '+1s', '1h-1m', '2562047h', '2562048h', '315576000000s', '315576000001s', '9223372036s', '1.5h', '.5s', '5.s', '1e3s', '100000000000000000000ns', '1m60s'];
for (const s of durStrs) {
  add('duration', `duration('${s}')`);
  add('duration', `string(duration('${s}'))`);
  add('duration-dyn', `duration(x)`, { vars: { x: 'string' }, bindings: { x: T.str(s) } });
  add('duration-dyn', `string(duration(x))`, { vars: { x: 'string' }, bindings: { x: T.str(s) } });
  add('duration-dyn', `int(duration(x))`, { vars: { x: 'string' }, bindings: { x: T.str(s) } });
}
const getters = ['getFullYear', 'getMonth', 'getDate', 'getDayOfMonth', 'getDayOfWeek', 'getDayOfYear', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];
for (const g of getters) {
  for (const tz of ['', "'UTC'", "'America/New_York'", "'+05:30'", "'-08:00'", "'05:30'", "'Europe/Berlin'", "'Nope/Zone'", "'+25:00'", "'Asia/Kolkata'"]) {
    add('ts-getter', `timestamp('2023-03-12T07:30:45.678901234Z').${g}(${tz})`);
  }
}
for (const g of ['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds']) for (const d of ['1h30m45.5s', '-1h30m', '0s', '49h']) add('dur-getter', `duration('${d}').${g}()`);
each('time-arith', [
  "timestamp('2023-01-01T00:00:00Z') + duration('1h')", "duration('1h') + timestamp('2023-01-01T00:00:00Z')", "timestamp('2023-01-01T00:00:00Z') - duration('1ns')", "timestamp('2023-01-02T00:00:00Z') - timestamp('2023-01-01T00:00:00Z')",
  "timestamp('9999-12-31T23:59:59Z') + duration('1s')", "timestamp('0001-01-01T00:00:00Z') - duration('1s')", "timestamp('9999-12-31T23:59:59Z') - timestamp('0001-01-01T00:00:00Z')", "duration('1h') + duration('1m')", "duration('1h') - duration('2h')",
  "duration('2562047h') + duration('2562047h')", "-duration('1s')", "duration('1s') * 2", "duration('1s') / 2", "duration('1s') == duration('1000ms')", "duration('1s') < duration('1001ms')", "timestamp(0) == timestamp('1970-01-01T00:00:00Z')",
  "timestamp(-62135596800)", "timestamp(-62135596801)", "timestamp(253402300799)", "timestamp(253402300800)", "timestamp(1.5)", "timestamp(1u)", "timestamp(timestamp(1))", "duration(duration('1s'))", "duration(1)", "int(duration('1.5s'))",
  "int(timestamp('2023-01-01T00:00:00.9Z'))", "int(timestamp('1969-12-31T23:59:59.5Z'))", "double(duration('1s'))", "string(duration('1.000000001s'))", "string(duration('-1.5s'))", "string(duration('1h'))", "string(duration('0.1s'))",
  "string(timestamp('2023-01-01T00:00:00.100Z'))", "string(timestamp('2023-01-01T00:00:00.000001Z'))", "timestamp('2023-01-01T00:00:00Z').getDayOfYear()", "timestamp('2024-12-31T23:00:00Z').getDayOfYear('+02:00')",
  "duration('1h') > duration('59m')", "timestamp('2023-01-01T00:00:00Z') < timestamp('2023-01-01T00:00:00.000000001Z')", "x + duration('1s')", "x - timestamp('2023-01-01T00:00:00Z')", "string(x)", "x.getSeconds()", "x.getMilliseconds()",
  "google.protobuf.Timestamp{seconds: 1}", "google.protobuf.Duration{seconds: 1}", "google.protobuf.Timestamp{}", "type(x) == google.protobuf.Timestamp", "timestamp('2023-01-01T00:00:00Z') + duration('1d')",
], { vars: { x: 'timestamp' }, bindings: { x: T.ts('2023-06-15T12:34:56.789012345Z') } });

// ---- URLs -------------------------------------------------------------------------------------
const urls = ['https://example.com', 'https://example.com:8080/path?x=1&y=2&x=3', 'http://user:pw@host/p', 'https://[::1]:80/', 'https://[::1]', 'https://[fe80::1%25en0]:8080/', '/absolute/path?q', 'relative/path', 'mailto:a@b.com',
  'https://example.com/a%20b', 'https://example.com/a b', 'https://example.com/%zz', 'https://example.com/#frag', 'HTTPS://EXAMPLE.COM/P', 'https://example.com:abc/', 'https://exa mple.com', 'ftp://x', '', '//host/path', 'https://example.com/ü',
  'https://example.com/?q=a+b&r=%20', 'https://example.com/?a', 'https://example.com/?a=1;b=2', 'http://:80', 'https://example.com:/', 'file:///etc/passwd', 'urn:isbn:123', 'https://example.com/path%2Fenc'];
for (const u of urls) {
  add('url', `isURL('${u}')`);
  for (const g of ['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath', 'getQuery']) add('url', `url('${u}').${g}()`);
}
each('url', ["url('https://a.com') == url('https://a.com')", "url('https://a.com') == url('https://b.com')", "string(url('https://a.com/x'))", "type(url('https://a.com'))", "url(1)", "url('https://a.com').getQuery()['x']"]);

// ---- quantities -------------------------------------------------------------------------------
const quantities = ['1', '1.5', '100m', '1k', '1Ki', '1Mi', '1.5Gi', '1e3', '1E3', '1e-3', '-1', '+1', '0', '0.1', '1n', '1u', '1P', '1E', '8Ei', '1.5.5', 'abc', '', '1 Ki', '9223372036854775807', '9223372036854775808', '100000000000000000000', '.5', '5.', '1m1', '1e', '12345678901234567890123', '0.0000000001', '1KiB', '-0'];
for (const q of quantities) {
  add('quantity', `isQuantity('${q}')`);
  for (const f of ['sign()', 'isInteger()', 'asInteger()', 'asApproximateFloat()', "add(quantity('1'))", 'add(1)', "sub(quantity('500m'))", 'sub(1)', "isLessThan(quantity('1'))", "isGreaterThan(quantity('1'))", "compareTo(quantity('1'))"]) {
    add('quantity', `quantity('${q}').${f}`);
  }
  add('quantity', `quantity('${q}') == quantity('1')`);
}
each('quantity', ["quantity('1k') == quantity('1000')", "quantity('1Ki') == quantity('1024')", "quantity('1.0') == quantity('1')", "quantity('100m') == quantity('0.1')", "quantity('1') == 1", "string(quantity('1k'))", "type(quantity('1'))",
  "quantity('9223372036854775807').add(1).asInteger()", "quantity('1').add(9223372036854775807).isInteger()", "quantity('1.5').asInteger()", "quantity(1)", "quantity('1') < quantity('2')"]);
// resource.Quantity's observable internals: the parsed text kept when canonical, the inf.Dec form
// (parse past int64 or below nano, BinarySI fractions), suffixes that do not exist for an exponent,
// the shared inf.Dec of `copy := *q`, Cmp converting its receiver, and the three parse errors.
for (const q of ['+1', '01', '1E3', '1e3', '1e+3', '3Ki', '8Ki', '1024Ki', '+3Ki', '1000E', '1e99', '1e-99', '1e2147483647', '0.5Ki', '0.0001Ki', '.e-10', '+', '-', '.', '+.Ki', '1Ki5', '1.2.3', '1KiB',
  '1.5Gi', '7Ei', '8Ei', '-8Ei', '0.0', '00', '1.000', '1000m', '0.1n', '-0.0000000001', '123456789012345678901234567890', '1234567890123456789e-5', '12e20', '1.5e-7']) {
  add('quantity', `quantity('${q}')`);
}
each('quantity', ["[quantity('1.5Gi')].map(q, [q.add(1), q])", "[quantity('1.5Gi')].map(q, [q.sub(quantity('1Gi')), q])", "[quantity('1')].map(q, [q.isLessThan(quantity('1.5Gi')), q.isInteger()])",
  "[quantity('1')].map(q, [q.compareTo(quantity('1.5Gi')), q.asInteger()])", "[quantity('1')].map(q, [q == quantity('1.5Gi'), q.isInteger()])", "[quantity('2')].map(q, [quantity('1.5Gi').isLessThan(q), q.isInteger()])",
  "quantity('1').sub(-9223372036854775808)", "quantity('1').add(-9223372036854775808)", "quantity('1000E').add(1)", "quantity('7Ei').add(quantity('7Ei'))", "quantity('1Ei').add(quantity('1023Ei'))",
  "quantity('1e2147483647').asApproximateFloat()", "quantity('1e-300').asApproximateFloat()", "quantity('1.5Gi').asApproximateFloat()",
  "quantity('0').add(quantity('1Ki'))", "quantity('0').sub(quantity('1Ki'))", "quantity('0.5').add(quantity('0.5'))", "quantity('1Ki').sub(quantity('1Ki'))", "quantity('1Mi').add(quantity('1'))", "quantity('-1Ki').sub(1)",
  "quantity('1Ki').add(quantity('0.5'))", "quantity('100m').add(quantity('900m'))", "quantity('1e3').add(1)", "quantity('1.5Gi').isInteger()", "quantity('1.5Gi').sub(quantity('0.5Gi')).isInteger()"]);

// ---- IP and CIDR --------------------------------------------------------------------------------
const ips = ['192.168.0.1', '127.0.0.1', '0.0.0.0', '255.255.255.255', '::1', '::', '2001:db8::1', 'fe80::1', 'ff02::1', '224.0.0.1', '169.254.1.1', '::ffff:1.2.3.4', '192.168.0.01', '1.2.3', '1.2.3.4.5', '2001:DB8::1', 'fe80::1%eth0', '', 'abc', '10.0.0.1/8', '::ffff:192.168.0.1', '2001:db8:0:0:0:0:0:1'];
for (const ip of ips) {
  add('ip', `isIP('${ip}')`);
  add('ip', `ip.isCanonical('${ip}')`);
  for (const f of ['family()', 'isUnspecified()', 'isLoopback()', 'isLinkLocalMulticast()', 'isLinkLocalUnicast()', 'isGlobalUnicast()']) add('ip', `ip('${ip}').${f}`);
  add('ip', `string(ip('${ip}'))`);
}
each('ip', ["ip('1.2.3.4') == ip('1.2.3.4')", "ip('::1') == ip('0:0:0:0:0:0:0:1')", "ip('1.2.3.4') == ip('::ffff:1.2.3.4')", "type(ip('1.2.3.4'))", "ip(1)", "isIP(1)"]);
const cidrs = ['192.168.0.0/24', '192.168.0.1/24', '10.0.0.0/8', '0.0.0.0/0', '::/0', '2001:db8::/32', '2001:db8::1/128', '192.168.0.0/33', '192.168.0.0', '1.2.3.4/-1', 'abc', '', '::ffff:1.2.3.0/120', '192.168.00.0/24', 'fe80::/10'];
for (const c of cidrs) {
  add('cidr', `isCIDR('${c}')`);
  for (const f of ["containsIP(ip('192.168.0.5'))", "containsIP('192.168.0.5')", "containsIP('2001:db8::5')", "containsCIDR(cidr('192.168.0.0/25'))", "containsCIDR('10.1.0.0/16')", 'ip()', 'masked()', 'prefixLength()']) add('cidr', `cidr('${c}').${f}`);
  add('cidr', `string(cidr('${c}'))`);
}
each('cidr', ["cidr('10.0.0.0/8') == cidr('10.0.0.0/8')", "cidr('10.0.0.1/8') == cidr('10.0.0.0/8')", "string(cidr('10.0.0.1/8').masked())", "string(cidr('10.0.0.1/8').ip())", "cidr('10.0.0.0/8').containsIP('not-an-ip')", "type(cidr('10.0.0.0/8'))"]);

// ---- format library -------------------------------------------------------------------------------
const formats = ['dns1123Label', 'dns1123Subdomain', 'dns1035Label', 'qualifiedName', 'dns1123LabelPrefix', 'dns1123SubdomainPrefix', 'dns1035LabelPrefix', 'labelValue', 'uri', 'uuid', 'byte', 'date', 'datetime'];
const formatInputs = ['abc', 'ABC', 'a-b', '-ab', 'a.b', '1abc', '', 'a'.repeat(64), 'example.com/name', 'a_b', 'https://example.com', '123e4567-e89b-12d3-a456-426614174000', 'aGVsbG8=', '2023-01-01', '2023-01-01T00:00:00Z', 'not valid!'];
for (const f of formats) {
  for (const s of formatInputs) add('format', `format.${f}().validate('${s}')`);
  add('format', `format.named('${f}').hasValue()`);
  add('format', `format.named('${f}').value().validate('abc')`);
}
each('format', ["format.named('nope').hasValue()", "format.named('dns1123Label').value() == format.dns1123Label()", "type(format.dns1123Label())", "format.dns1123Label().validate('abc').hasValue()", "format.dns1123Label().validate(1)", "format.nope()"]);

// ---- misc language: ternary, logic, errors absorbed, parser limits ---------------------------------
each('logic', [
  'true && false', 'true || false', '!true', '!!false', 'false && (1 / 0 > 0)', '(1 / 0 > 0) && false', 'true || (1 / 0 > 0)', '(1 / 0 > 0) || true', '(1 / 0 > 0) || false', '(1 / 0 > 0) && true', 'true ? 1 : 2', 'false ? 1 : "a"',
  'true ? 1 : 1 / 0', '(1 / 0 > 0) ? 1 : 2', '1 ? 2 : 3', '1 && true', 'dyn(1) && true', 'dyn(1) || true', 'true && dyn(1)', 'false && dyn(1)', '!1', 'x && true', 'x.a', 'x[0]', 'y.z', 'undeclared', 'f(1)', '1.f()', 'a.b.c',
  '[1, 2, 3][1] == 2', '{"a": {"b": 1}}.a.b', '{"a": {"b": 1}}["a"]["b"]', '{"a": 1}.b', '{"a": 1}["b"]', '{1: 2}[1]', '{1: 2}[2]', 'int("1") + 1', 'size(1)', 'size(null)', 'size({"a": 1})', 'size(b"abc")', '1 + 1.0', '1 + 1u', '"a" + b"a"',
  '[] + []', '{} == {}', '[] == []', 'x || true', 'in', '1 +', '(1', '1)', '"a".', 'a..b', '.a', 'true.false', '1 = 1', '1 == = 1', 'if', 'null.a', '__proto__', 'x.__proto__', '{"__proto__": 1}.__proto__', '{"constructor": 1}["constructor"]',
  'dyn(x)["toString"]', '{}.a', '{}["a"]', 'int.a', 'a.b(1)', 'x.all', 'x.size', 'size', 'int', 'bool', 'type', 'dyn', 'null_type', 'list', 'map', 'google.protobuf.Any', 'google.protobuf.Int64Value{value: 1}', 'google.protobuf.Value{}',
  'Foo{}', '.x', 'x.y.z', 'in in in', 'for', 'let', 'var', 'function', 'return', 'package', 'namespace', 'void', 'while', 'import', 'as', 'break', 'const', 'continue', 'else', 'loop', '__x__', 'x.__dash__',
], { vars: { x: 'bool' }, bindings: { x: T.bool(true) } });

// Parser limits: nesting, size, long expressions.
for (const n of [10, 24, 25, 31, 32, 33, 50, 100, 250, 251]) {
  add('limits', `${'('.repeat(n)}1${')'.repeat(n)}`);
  add('limits', `${'['.repeat(n)}1${']'.repeat(n)}`);
  add('limits', `${'-'.repeat(n)}1`);
  add('limits', `${'!'.repeat(n)}true`);
  add('limits', Array.from({ length: n }, (_, i) => String(i)).join(' + '));
  add('limits', Array.from({ length: n }, () => 'true').join(' && '));
  add('limits', Array.from({ length: n }, () => 'a').join('.'));
  add('limits', `${'{"a": '.repeat(n)}1${'}'.repeat(n)}`);
  add('limits', `[${Array.from({ length: n * 4 }, (_, i) => String(i)).join(', ')}].size()`);
  add('limits', `${'size('.repeat(n)}"a"${')'.repeat(n)}`);
}
add('limits', `'${'a'.repeat(20_000)}'.size()`);
add('limits', `[${Array.from({ length: 6000 }, (_, i) => String(i)).join(',')}].size()`);
add('limits', Array.from({ length: 1000 }, () => '1').join('+'));
add('limits', `'${'a'.repeat(10)}' + '${'b'.repeat(10)}'`);

// ---- costs: runtime and estimated, with schema-typed self ---------------------------------------
const str = (maxLength?: number) => ({ type: 'string', ...(maxLength === undefined ? {} : { maxLength }) });
const arr = (items: unknown, maxItems?: number, extra: Record<string, unknown> = {}) => ({ type: 'array', items, ...(maxItems === undefined ? {} : { maxItems }), ...extra });
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });
const int = { type: 'integer' };

for (const maxLength of [undefined, 0, 1, 10, 63, 253, 1000, 100000]) {
  const schema = obj({ s: str(maxLength), t: str(maxLength), l: arr(str(maxLength), 10) });
  const value = { s: 'hello', t: 'world', l: ['a', 'b'] };
  each(`cost-string-${maxLength ?? 'inf'}`, [
    'self.s == self.t', 'self.s != "x"', 'self.s + self.t', 'size(self.s)', 'self.s.size() > 2', 'self.s.startsWith("h")', 'self.s.endsWith("o")', 'self.s.contains("ll")', 'self.s.matches("^h.*o$")', 'self.s.matches(self.t)',
    'self.s.find("l+")', 'self.s.findAll("l")', 'self.s.lowerAscii()', 'self.s.upperAscii()', 'self.s.trim()', 'self.s.replace("l", "L")', 'self.s.split("l")', 'self.s.substring(1)', 'self.s.charAt(1)', 'self.s.indexOf("l")', 'self.s.lastIndexOf("l")',
    'self.s < self.t', 'self.s in self.l', 'self.l.all(x, x.size() < 5)', 'self.l.exists(x, x == self.s)', 'self.l.map(x, x + "!")', 'self.l.join(",")', 'self.l.isSorted()', 'self.l.min()', "'%s'.format([self.s])", 'isURL(self.s)', 'isQuantity(self.s)',
    'isIP(self.s)', 'isCIDR(self.s)', 'strings.quote(self.s)', 'bytes(self.s).size()', 'string(self.s)', 'int(size(self.s))', 'self.s.matches("[a-z]+") && self.t.matches("[a-z]+")', 'format.dns1123Label().validate(self.s).hasValue()', 'self.l.filter(x, x.matches("a"))',
    'self.l.map(x, x.split("")).size()', 'self.l.indexOf(self.s)', 'self.l + [self.s]', '[self.s, self.t].join()', 'self.s + self.s + self.s', 'self.s == "hello"', 'self == oldSelf', 'self.l == oldSelf.l', 'sets.contains(self.l, [self.s])', 'self.l.sort()',
  ], { schema, bindings: { self: value, oldSelf: value } });
}
for (const maxItems of [undefined, 0, 1, 10, 100, 1000, 5000]) {
  const schema = obj({ items: arr(obj({ name: str(20), n: int, tags: arr(str(10), 5) }, { required: ['name'] }), maxItems), ints: arr(int, maxItems), m: { type: 'object', additionalProperties: int, ...(maxItems === undefined ? {} : { maxProperties: maxItems }) } });
  const small = { items: [{ name: 'a', n: 1, tags: ['x'] }, { name: 'b', n: 2, tags: [] }], ints: [3, 1, 2], m: { a: 1 } };
  const big = { items: Array.from({ length: Math.min(maxItems ?? 300, 300) }, (_, i) => ({ name: `n${i}`, n: i, tags: ['t'] })), ints: Array.from({ length: Math.min(maxItems ?? 300, 300) }, (_, i) => i), m: Object.fromEntries(Array.from({ length: Math.min(maxItems ?? 100, 100) }, (_, i) => [`k${i}`, i])) };
  const exprs = [
    'self.items.all(i, i.name.size() > 0)', 'self.items.exists(i, i.n > 5)', 'self.items.map(i, i.name)', 'self.items.filter(i, i.n % 2 == 0).size()', 'self.items.all(i, self.items.all(j, i.n != j.n || i.name == j.name))',
    'self.ints.all(x, self.ints.all(y, x + y >= 0))', 'self.ints.sum()', 'self.ints.min()', 'self.ints.max()', 'self.ints.isSorted()', 'self.ints.indexOf(2)', 'self.ints.lastIndexOf(2)', 'size(self.ints)', '2 in self.ints', 'self.ints + self.ints',
    'self.ints.map(x, x * 2).sum()', 'self.ints == oldSelf.ints', 'self.m.all(k, self.m[k] >= 0)', '"a" in self.m', 'self.m.size()', 'self.m.exists(k, k.startsWith("k"))', 'self.items.all(i, i.tags.all(t, t.size() < 10))', 'self.items.exists_one(i, i.name == "a")',
    'sets.contains(self.ints, [1])', 'sets.intersects(self.ints, oldSelf.ints)', 'sets.equivalent(self.ints, oldSelf.ints)', 'self.items.map(i, i.n).sum()', 'self.ints.filter(x, x > 1).map(x, x * x)', 'self.items.all(i, i.tags.size() <= 5)', '[1, 2, 3].all(x, x > 0)',
    'self.ints.all(x, x in oldSelf.ints)', 'self.ints.map(x, self.ints.map(y, x * y)).size()', 'self.items.map(i, i.name).join(",")', 'has(self.items) && self.items.size() > 0', 'self.items[0].name', 'self.m.map(k, self.m[k]).sum()',
  ];
  each(`cost-list-${maxItems ?? 'inf'}`, exprs, { schema, bindings: { self: small, oldSelf: small } });
  // Large objects only where the size matters, to keep the corpus file small.
  if (maxItems === undefined || maxItems >= 1000) each(`cost-list-big-${maxItems ?? 'inf'}`, exprs.slice(0, 12), { schema, bindings: { self: big, oldSelf: big } });
  each(`cost-list-stored-${maxItems ?? 'inf'}`, ['self.ints.all(i, x, x >= i)', 'self.items.transformList(i, v, v.name)', 'self.m.transformMap(k, v, v + 1).size()', 'self.ints.existsOne(i, x, x == 0)'], { env: 'stored', schema, bindings: { self: small, oldSelf: small } });
}
for (const limit of [1, 10, 50, 100, 1000, 10000]) {
  each(`cost-limit-${limit}`, [
    '[1, 2, 3].map(x, [1, 2, 3].map(y, x * y))', '"abc".matches("a+")', '[1, 2, 3].all(x, x > 0)', 'x.all(a, x.all(b, a + b > 0))', 'x.map(a, string(a)).join(",").size()', '"a" + "b" + "c"', 'size(x)', 'x.sum()',
    'x.filter(a, a % 2 == 0).size()', 'x.exists(a, a == 7)', "'%s'.format([x])", 'x == x', 'x.map(a, a * 2) == x.map(a, a * 2)', 'sets.contains(x, x)', 'x.sort()',
  ], { vars: { x: 'list(int)' }, bindings: { x: T.list(...Array.from({ length: 40 }, (_, i) => T.int(i))) }, costLimit: limit });
}
// Big runtime costs: nested comprehensions over 1000-element lists.
each('cost-nested', ['x.all(a, x.all(b, a + b >= 0))', 'x.map(a, x.filter(b, b == a).size()).sum()', 'x.exists(a, x.exists(b, a + b < 0))', 'x.all(a, a >= 0)', 'x.map(a, a).map(b, b).size()'], { vars: { x: 'list(int)' }, bindings: { x: T.list(...Array.from({ length: 1000 }, (_, i) => T.int(i))) } });
each('cost-nested-strings', ['x.all(a, x.all(b, a != b || a == b))', 'x.map(a, a + a).join("").size()', 'x.all(a, a.matches("^[0-9]+$"))', 'x.join(",").split(",").size()'], { vars: { x: 'list(string)' }, bindings: { x: T.list(...Array.from({ length: 300 }, (_, i) => T.str(`item-${i}`))) } });

// Variables of many declared types: type checking against declarations.
const typed: Array<[string, string, unknown]> = [
  ['int', 'x + 1', T.int(41)], ['int', 'x + 1.0', T.int(1)], ['int', 'x == 1.0', T.int(1)], ['int', 'x == 1u', T.int(1)], ['int', 'x < 1.5', T.int(1)], ['int', 'x + "a"', T.int(1)], ['int', 'x.size()', T.int(1)], ['int', 'string(x)', T.int(-5)],
  ['uint', 'x + 1u', T.uint(1)], ['uint', 'x + 1', T.uint(1)], ['uint', 'x - 2u', T.uint(1)], ['double', 'x * 2.0', T.double(1.5)], ['double', 'x * 2', T.double(1.5)], ['double', 'int(x)', T.double(-2.5)],
  ['string', 'x + "!"', T.str('hi')], ['string', 'x.size()', T.str('héllo')], ['string', 'x.a', T.str('hi')], ['string', 'x[0]', T.str('hi')], ['string', 'x > 1', T.str('hi')],
  ['bytes', 'x.size()', T.bytes('héllo')], ['bytes', 'string(x)', T.bytes('ok')], ['bytes', 'x + b"!"', T.bytes('ok')], ['bool', '!x', T.bool(false)], ['bool', 'x + 1', T.bool(true)],
  ['list(int)', 'x.sum()', T.list(T.int(1), T.int(2))], ['list(int)', 'x + ["a"]', T.list(T.int(1))], ['list(int)', 'x + [1.0]', T.list(T.int(1))], ['list(int)', 'x.map(e, e + 1)', T.list(T.int(1))], ['list(int)', 'x[0] + 1', T.list(T.int(5))],
  ['list(int)', 'x.exists(e, e == "a")', T.list(T.int(1))], ['list(int)', 'x.all(e, e.size() > 0)', T.list(T.int(1))], ['list(int)', '"a" in x', T.list(T.int(1))], ['list(int)', '1.0 in x', T.list(T.int(1))], ['list(int)', 'x == [1]', T.list(T.int(1))], ['list(int)', 'x == ["a"]', T.list(T.int(1))],
  ['list(string)', 'x.sum()', T.list(T.str('a'))], ['list(string)', 'x.join("-")', T.list(T.str('a'), T.str('b'))], ['list(string)', 'x.min()', T.list(T.str('b'), T.str('a'))], ['list(string)', 'x.isSorted()', T.list(T.str('b'), T.str('a'))],
  ['map(string, int)', 'x.a + 1', T.map([T.str('a'), T.int(1)])], ['map(string, int)', 'x["a"] + 1', T.map([T.str('a'), T.int(1)])], ['map(string, int)', 'x[1]', T.map([T.str('a'), T.int(1)])], ['map(string, int)', 'x.z', T.map([T.str('a'), T.int(1)])],
  ['map(string, int)', 'x.all(k, x[k] > 0)', T.map([T.str('a'), T.int(1)])], ['map(string, int)', 'x.map(k, k)', T.map([T.str('a'), T.int(1)], [T.str('b'), T.int(2)])], ['map(string, int)', 'has(x.a)', T.map([T.str('a'), T.int(1)])], ['map(string, int)', 'has(x.b)', T.map([T.str('a'), T.int(1)])],
  ['map(int, string)', 'x[1]', T.map([T.int(1), T.str('one')])], ['map(int, string)', 'x[1u]', T.map([T.int(1), T.str('one')])], ['map(int, string)', 'x[1.0]', T.map([T.int(1), T.str('one')])], ['map(int, string)', 'x["1"]', T.map([T.int(1), T.str('one')])],
  ['dyn', 'x + 1', T.int(1)], ['dyn', 'x + 1', T.str('a')], ['dyn', 'x.a', T.map([T.str('a'), T.int(1)])], ['dyn', 'x.b', T.map([T.str('a'), T.int(1)])], ['dyn', 'x == 1', T.double(1)], ['dyn', 'x.size()', T.list(T.int(1))],
  ['timestamp', 'x.getFullYear()', T.ts('2020-02-29T00:00:00Z')], ['duration', 'x.getSeconds()', T.dur(90_000_000_000n)], ['duration', 'string(x)', T.dur(1_500_000n)], ['duration', 'x + x', T.dur(1)], ['null', 'x == null', T.null()],
  ['optional(int)', 'x.hasValue()', { t: 'optional', v: T.int(1) }], ['optional(int)', 'x.orValue(0) + 1', { t: 'optional' }], ['list(list(int))', 'x.map(l, l.sum()).sum()', T.list(T.list(T.int(1), T.int(2)), T.list(T.int(3)))],
  ['list(dyn)', 'x.sum()', T.list(T.int(1), T.double(2))], ['list(dyn)', 'x.map(e, type(e))', T.list(T.int(1), T.str('a'), T.null())], ['map(string, dyn)', 'x.a.b', T.map([T.str('a'), T.map([T.str('b'), T.int(1)])])],
];
for (const [type, expr, value] of typed) add('typed', expr, { vars: { x: type }, bindings: { x: value } });

// Schema-typed self: fields that exist or not, list types, formats, int-or-string.
const crdSchema = obj({
  name: str(63), replicas: int, ratio: { type: 'number' }, enabled: { type: 'boolean' }, created: { type: 'string', format: 'date-time' }, timeout: { type: 'string', format: 'duration' }, data: { type: 'string', format: 'byte' },
  port: { 'x-kubernetes-int-or-string': true }, labels: { type: 'object', additionalProperties: str(63), maxProperties: 64 }, ports: arr(obj({ name: str(15), port: int }, { required: ['name', 'port'] }), 16, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
  tags: arr(str(20), 10, { 'x-kubernetes-list-type': 'set' }), free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, 'dash-name': str(10), 'dot.name': str(10), namespace: str(10), in: str(5), nested: obj({ deep: obj({ value: str(5) }) }),
});
const crdValue = { name: 'web', replicas: 3, ratio: 0.5, enabled: true, created: '2023-01-01T00:00:00Z', timeout: '1m30s', data: 'aGVsbG8=', port: 8080, labels: { app: 'web' }, ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }], tags: ['b', 'a'], free: { x: 1, y: 'z' }, 'dash-name': 'd', 'dot.name': 'e', namespace: 'ns', in: 'i', nested: { deep: { value: 'v' } } };
const crdOld = { ...crdValue, replicas: 2, tags: ['a', 'b'], ports: [{ name: 'https', port: 443 }, { name: 'http', port: 80 }] };
each('schema', [
  'self.name == "web"', 'self.replicas > 1', 'self.replicas > 1.5', 'self.replicas == 3.0', 'self.ratio < 1', 'self.ratio < 1.0', 'self.enabled', 'self.nope', 'has(self.nope)', 'self.name.nope', 'self.created < timestamp("2024-01-01T00:00:00Z")',
  'self.created.getFullYear()', 'self.timeout > duration("1m")', 'string(self.timeout)', 'self.data.size()', 'string(self.data)', 'self.port == 8080', 'self.port == "8080"', 'type(self.port)', 'self.labels.app', 'self.labels["app"]', 'self.labels.nope',
  'has(self.labels.app)', 'self.ports.size()', 'self.ports[0].port', 'self.ports.all(p, p.port > 0)', 'self.ports.exists(p, p.name == "http")', 'self.ports + [{"name": "x", "port": 1}]', 'self.ports == oldSelf.ports', 'self.tags == oldSelf.tags',
  'self.tags + ["c", "a"]', '(self.tags + ["c", "a"]).size()', 'self.tags.sum()', 'self.tags.min()', 'self.free.x', 'self.free.y', 'self.free.nope', 'has(self.free.x)', 'self.dash__dash__name', 'self.dot__dot__name', 'self.__namespace__', 'self.namespace',
  'self.__in__', 'self.nested.deep.value', 'has(self.nested.deep.value)', 'self.nested.deep.nope', 'self.replicas == oldSelf.replicas', 'self.replicas >= oldSelf.replicas', 'self.name + 1', 'self.ports.map(p, p.name)', 'self.ports.map(p, p.nope)',
  'self.ports + [{"name": "x"}]', 'self.ports + [1]', 'self.tags + [1]', 'self.labels.all(k, self.labels[k].size() < 64)', 'self == oldSelf', 'self.replicas + self.ratio', 'self.ports[0] == oldSelf.ports[1]', 'self.name.matches("^[a-z]+$")',
  'self.?name.orValue("")', 'self.?nope.orValue("")', 'self.labels.?app.orValue("")', 'self.ports.filter(p, p.port > 100).map(p, p.name)', 'size(self.labels) <= 64', 'self.port.size()', 'int(self.port) > 0', 'self.ports.all(p, p.name.size() <= 15)',
  'self.ports.exists_one(p, p.port == 80)', 'self.tags.all(t, t in oldSelf.tags)', 'self.created + duration("1h") > self.created', 'type(self)', 'self.ports[0].name.size()', 'self.ports.sort()', '{"a": self.name}.a', 'self.replicas * 2 <= 10',
], { schema: crdSchema, bindings: { self: crdValue, oldSelf: crdOld } });
each('schema-stored', ['self.ports.all(i, p, p.port > i)', 'self.labels.all(k, v, v.size() > 0)', 'self.tags.transformList(i, t, t + string(i))', 'self.labels.transformMap(k, v, v + "!")'], { env: 'stored', schema: crdSchema, bindings: { self: crdValue, oldSelf: crdOld } });

for (const e of out) process.stdout.write(`${JSON.stringify(e)}\n`);
process.stderr.write(`${out.length} corpus entries\n`);
