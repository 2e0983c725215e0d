/**
 * Query options answered as kube-apiserver v1.32 answers them (texts taken from the reference
 * server): malformed integers, resource versions, continue tokens, table options, export,
 * sendInitialEvents on a list, and the `timeout` parameter of every request; all at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.ts';
import { parseGoDuration } from '../../src/server/request-timeout.ts';
import { decodeContinue } from '../../src/registry/continue-token.ts';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  await t.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'opt' } } });
});
afterAll(async () => {
  await t?.close();
});

const base = '/api/v1/namespaces/default/configmaps';
const status = (code: number, message: string, reason?: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  ...(reason ? { reason } : {}),
  code,
});
const token = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('list options', () => {
  it('parses integers as Go\'s strconv.ParseInt', async () => {
    for (const [q, shown, why] of [
      ['limit=1e3', '1e3', 'invalid syntax'],
      ['limit=0x10', '0x10', 'invalid syntax'],
      ['limit=%201', ' 1', 'invalid syntax'],
      ['limit=99999999999999999999', '99999999999999999999', 'value out of range'],
      ['timeoutSeconds=abc', 'abc', 'invalid syntax'],
    ] as const) {
      const r = await t.request('GET', `${base}?${q}`);
      expect(r.json, q).toEqual(status(400, `strconv.ParseInt: parsing ${JSON.stringify(shown)}: ${why}`, 'BadRequest'));
    }
    // A negative limit is no limit.
    const neg = await t.request('GET', `${base}?limit=-5`);
    expect(neg.status).toBe(200);
    expect(neg.json.items.map((i: any) => i.metadata.name)).toContain('opt');
  });

  it('refuses a malformed resourceVersion at once: 500 from the cache, 400 where kube reads etcd', async () => {
    for (const rv of ['abc', '-1', '1.5']) {
      const cached = `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`;
      expect((await t.request('GET', `${base}?resourceVersion=${rv}`)).json).toEqual(status(500, cached));
      expect((await t.request('GET', `${base}/opt?resourceVersion=${rv}`)).json).toEqual(status(500, cached));
      expect((await t.request('GET', `${base}?watch=1&resourceVersion=${rv}`)).json).toEqual(status(500, cached));
      expect((await t.request('GET', `${base}?resourceVersion=${rv}&limit=1`)).json).toEqual(status(400, `invalid resource version: ${cached}`, 'BadRequest'));
      expect((await t.request('GET', `${base}?resourceVersion=${rv}&resourceVersionMatch=Exact`)).json).toEqual(status(400, `invalid resource version: ${cached}`, 'BadRequest'));
    }
  });

  it('answers continue tokens as kube\'s storage decodes them', async () => {
    const inv = (m: string) => status(400, `invalid continue token: continue key is not valid${m}`, 'BadRequest');
    expect((await t.request('GET', `${base}?continue=garbage`)).json).toEqual(inv(": invalid character '\\u0081' looking for beginning of value"));
    expect((await t.request('GET', `${base}?continue=${token({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' })}`)).json).toEqual(
      inv(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)'),
    );
    expect((await t.request('GET', `${base}?continue=${token({ v: 'meta.k8s.io/v2', rv: 2, start: 'a' })}`)).json).toEqual(
      inv(': server does not recognize this encoded version meta.k8s.io/v2'),
    );
    expect((await t.request('GET', `${base}?continue=${token({ v: 'meta.k8s.io/v1', rv: 2, start: '../a' })}`)).json).toEqual(inv(': ../a'));
    // A revision in the future: etcd's error, passed on as a bare 500, at once.
    const future = await t.request('GET', `${base}?continue=${token({ v: 'meta.k8s.io/v1', rv: 999999999999, start: 'a' })}`);
    expect(future.json).toEqual(status(500, 'etcdserver: mvcc: required revision is a future revision'));
    const exact = await t.request('GET', `${base}?resourceVersion=999999999&resourceVersionMatch=Exact`);
    expect(exact.json).toEqual(status(500, 'etcdserver: mvcc: required revision is a future revision'));
    // A negative revision reads the latest snapshot.
    const latest = await t.request('GET', `${base}?continue=${token({ v: 'meta.k8s.io/v1', rv: -5, start: 'a' })}`);
    expect(latest.status).toBe(200);
    expect(latest.json.items.map((i: any) => i.metadata.name)).toContain('opt');
  });

  it('forbids sendInitialEvents on a list and checks resourceVersionMatch as kube', async () => {
    const r = await t.request('GET', `${base}?sendInitialEvents=Bogus`);
    expect(r.status).toBe(422);
    expect(r.json.message).toBe('ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
    expect(r.json.details).toEqual({ group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list', field: 'sendInitialEvents' }] });
    const m = await t.request('GET', `${base}?resourceVersionMatch=Bogus`);
    expect(m.json.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""]',
    );
  });

  it('validates includeObject only when a Table is asked for, and refuses export on a get', async () => {
    expect((await t.request('GET', `${base}?includeObject=Bogus`)).status).toBe(200);
    const table = await t.request('GET', `${base}?includeObject=Bogus`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    expect(table.json).toEqual(status(400, `Unable to convert to Table as requested: includeObject: Invalid value: "Bogus": must be 'Metadata', 'Object', 'None', or empty`, 'BadRequest'));
    expect((await t.request('GET', `${base}/opt?export=true`)).json).toEqual(status(400, 'the export parameter, deprecated since v1.14, is no longer supported', 'BadRequest'));
    expect((await t.request('GET', `${base}/opt?export=false`)).status).toBe(200);
    expect((await t.request('GET', `${base}?export=true`)).status).toBe(200);
  });

  it('answers a Table watch that asks for initial events with 406', async () => {
    const r = await t.request('GET', `${base}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`, {
      headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
    });
    expect(r.status).toBe(406);
    expect(r.json.message).toBe('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });
});

describe('the timeout parameter', () => {
  it('is refused with kube\'s message on any non-watch URL, before anything else', async () => {
    const msg = 'invalid timeout specified in the request URL - time: invalid duration "invalid"';
    for (const p of [`${base}?timeout=invalid`, `${base}/opt?timeout=invalid`, '/api?timeout=invalid', '/version?timeout=invalid', '/healthz?timeout=invalid']) {
      expect((await t.request('GET', p)).json, p).toEqual(status(400, msg, 'BadRequest'));
    }
    expect((await t.request('GET', `${base}?timeout=5s`)).status).toBe(200);
    expect((await t.request('GET', `${base}?timeout=-5s`)).status).toBe(200);
  });

  it('parses durations as Go\'s time.ParseDuration', () => {
    expect(parseGoDuration('1h2m3.5s')).toEqual({ nanos: 3723.5e9 });
    expect(parseGoDuration('0')).toEqual({ nanos: 0 });
    expect(parseGoDuration('-1.5ms')).toEqual({ nanos: -1.5e6 });
    expect(parseGoDuration('5')).toEqual({ error: 'time: missing unit in duration "5"' });
    expect(parseGoDuration('5x')).toEqual({ error: 'time: unknown unit "x" in duration "5x"' });
    expect(parseGoDuration('.s')).toEqual({ error: 'time: invalid duration ".s"' });
    expect(parseGoDuration('')).toEqual({ error: 'time: invalid duration ""' });
  });

  it('decodes continue tokens it encoded', () => {
    expect(decodeContinue(token({ v: 'meta.k8s.io/v1', rv: 7, start: 'default/x' }))).toEqual({ revision: 7, start: 'default/x' });
    expect(() => decodeContinue(token({ v: 'meta.k8s.io/v1', rv: 7, start: '' }))).toThrow('encoded start key empty (version meta.k8s.io/v1)');
  });
});

describe('write options', () => {
  const invalid = (kind: string, causes: { reason: string; message: string; field: string }[], message: string) => ({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${kind}.meta.k8s.io "" is invalid: ${message}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind, causes },
    code: 422,
  });
  const unsupported = { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"', field: 'fieldValidation' };
  const tooLong = { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes', field: 'fieldManager' };
  const long = 'm'.repeat(129);

  it('answers invalid options of create, update and patch with 422 naming the options kind', async () => {
    const cm = { metadata: { name: 'wo' } };
    expect((await t.request('POST', `${base}?fieldValidation=Bogus`, { body: cm })).json).toEqual(invalid('CreateOptions', [unsupported], `fieldValidation: ${unsupported.message}`));
    expect((await t.request('POST', `${base}?fieldManager=${long}`, { body: cm })).json).toEqual(invalid('CreateOptions', [tooLong], `fieldManager: ${tooLong.message}`));
    expect((await t.request('PUT', `${base}/opt?fieldValidation=Bogus`, { body: { metadata: { name: 'opt' } } })).json).toEqual(
      invalid('UpdateOptions', [unsupported], `fieldValidation: ${unsupported.message}`),
    );
    const merge = { 'content-type': 'application/merge-patch+json' };
    expect((await t.request('PATCH', `${base}/opt?fieldManager=${long}&fieldValidation=Bogus`, { body: {}, headers: merge })).json).toEqual(
      invalid('PatchOptions', [tooLong, unsupported], `[fieldManager: ${tooLong.message}, fieldValidation: ${unsupported.message}]`),
    );
    const force = { reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' };
    expect((await t.request('PATCH', `${base}/opt?force=true`, { body: {}, headers: merge })).json).toEqual(invalid('PatchOptions', [force], `force: ${force.message}`));
    // Nothing was written.
    expect((await t.request('GET', `${base}/wo`)).status).toBe(404);
  });
});

describe('query booleans', () => {
  it('converts force as kube does: any value but 0/false is true', async () => {
    const apply = (manager: string, value: string, extra = '') =>
      t.request('PATCH', `${base}/forced?fieldManager=${manager}${extra}`, {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'forced' }, data: { x: value } }),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    expect((await apply('a', '1')).status).toBe(201);
    expect((await apply('b', '2')).status).toBe(409);
    expect((await apply('b', '2', '&force=false')).status).toBe(409);
    const forced = await apply('b', '2', '&force=yes');
    expect(forced.status).toBe(200);
    expect(forced.json.data).toEqual({ x: '2' });
  });
});

describe('bodies kube cannot read as an object', () => {
  const unrecognized = (kind: string, hex: string) =>
    `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal ${kind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (${hex})`;

  it('answers a JSON body that is not an object with kube\'s type-meta decode error', async () => {
    for (const [body, kind, hex] of [
      ['[1,2]', 'array', '5b312c325d'],
      ['"str"', 'string', '2273747222'],
      ['5', 'number', '35'],
      ['true', 'bool', '74727565'],
    ] as const) {
      const r = await t.request('POST', base, { body });
      expect(r.json, body).toEqual(status(400, unrecognized(kind, hex), 'BadRequest'));
    }
  });

  it('refuses an update whose body does not name the object', async () => {
    for (const body of ['{}', '{"metadata":{}}', 'null']) {
      const r = await t.request('PUT', `${base}/opt`, { body });
      expect(r.json, body).toEqual(status(400, 'the name of the object (opt based on URL) was undeterminable: name must be provided', 'BadRequest'));
    }
  });
});
