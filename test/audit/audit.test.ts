/**
 * Audit through a running server: the events of each level and stage for the policy in
 * audit-policy.yaml, compared field for field (key order included) with what kube-apiserver
 * v1.32.4 logged for the same requests (reference-events.ts), after the values that differ by
 * nature (IDs, times, uids, resource versions, the user's credential) are normalized. Also the
 * Audit-Id header, admission's annotations in the record, and startup errors for bad policies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { auditFlags } from './flags.ts';
import { normalize } from './event-lines.ts';
import { REFERENCE_EVENTS } from './reference-events.ts';
import { parsePromText, sampleValue } from '../metrics/prom-text.ts';

const POLICY = new URL('./audit-policy.yaml', import.meta.url).pathname;

let t: TestServer;
let dir: string;
let log: string;

async function events(filter: (e: Record<string, any>) => boolean = () => true): Promise<string[]> {
  // The log sink writes in the background: wait for the file to settle.
  let text = '';
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 40));
    const next = await readFile(log, 'utf8').catch(() => '');
    if (next === text && next !== '') break;
    text = next;
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .filter((l) => filter(JSON.parse(l)));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-audit-'));
  log = join(dir, 'audit.log');
  t = await startTestServer({ config: { audit: auditFlags({ policyFile: POLICY, logPath: log }) } });
  for (const n of ['audit-rr', 'audit-req', 'audit-rr-omit']) expect((await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: n } } })).status).toBe(201);
  // The same requests, in the same order, as were sent to kube-apiserver for reference-events.ts.
  const h = { 'user-agent': 'audit-test' };
  await t.request('POST', '/api/v1/namespaces/audit-rr/configmaps?fieldManager=t', { headers: h, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', labels: { a: 'b' } }, data: { k: 'v' } } });
  await t.request('POST', '/api/v1/namespaces/audit-req/configmaps', { headers: h, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { k: 'v' } } });
  await t.request('POST', '/api/v1/namespaces/audit-rr-omit/configmaps', { headers: h, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { k: 'v' } } });
  await t.request('GET', '/api/v1/namespaces/audit-rr/configmaps/missing', { headers: h });
  await t.request('GET', '/api/v1/namespaces/default/configmaps/x', { headers: { ...h, 'Impersonate-User': 'eve' } });
  await t.request('GET', '/api/v1/namespaces/audit-req/configmaps?watch=1&timeoutSeconds=1', { headers: h });
  await t.request('DELETE', '/api/v1/namespaces/audit-req/configmaps/c1', { headers: h });
  await t.request('GET', '/api/v1/namespaces', { headers: { ...h, authorization: 'Bearer wrong' }, anonymous: true });
});

afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('audit events against kube-apiserver v1.32.4', () => {
  it('writes the same events, stage by stage, for every level of the policy', async () => {
    const ours = (await events((e) => e.userAgent === 'audit-test')).map(normalize);
    expect(ours).toEqual(REFERENCE_EVENTS.map(normalize));
  });

  it('answers Audit-Id on every response, the client\'s own when it sends one', async () => {
    const r = await t.request('GET', '/api/v1/namespaces/default');
    expect(r.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    const mine = await t.request('GET', '/api/v1/namespaces/default', { headers: { 'Audit-ID': 'my-audit-id' } });
    expect(mine.headers['audit-id']).toBe('my-audit-id');
    const refused = await t.request('GET', '/api/v1/namespaces', { anonymous: true });
    expect(refused.status).toBe(403);
    expect(refused.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    const logged = await events((e) => e.auditID === 'my-audit-id');
    expect(logged.map((l) => JSON.parse(l).stage)).toEqual(['RequestReceived', 'ResponseComplete']);
  });

  it('records admission\'s audit annotations in the request\'s event (a policy\'s auditAnnotations and Audit action)', async () => {
    await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'audit-adm', labels: { audit: 'adm' } } } });
    const vap = await t.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      body: {
        metadata: { name: 'audited' },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          validations: [{ expression: "object.metadata.name != 'bad'", message: 'bad name' }],
          auditAnnotations: [{ key: 'name', valueExpression: "string(object.metadata.name)" }],
        },
      },
    });
    expect(vap.status, vap.text).toBe(201);
    const binding = await t.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      body: { metadata: { name: 'audited' }, spec: { policyName: 'audited', validationActions: ['Audit'], matchResources: { namespaceSelector: { matchLabels: { audit: 'adm' } } } } },
    });
    expect(binding.status, binding.text).toBe(201);
    let annotations: Record<string, string> = {};
    for (let i = 0; i < 100 && !annotations['audited/name']; i++) {
      const name = `bad`;
      await t.request('DELETE', `/api/v1/namespaces/audit-adm/configmaps/${name}`);
      await t.request('POST', '/api/v1/namespaces/audit-adm/configmaps', { headers: { 'Audit-ID': `adm-${i}` }, body: { metadata: { name } } });
      const [complete] = await events((e) => e.auditID === `adm-${i}` && e.stage === 'ResponseComplete');
      annotations = complete ? JSON.parse(complete).annotations : {};
    }
    expect(annotations['audited/name']).toBe('bad');
    expect(JSON.parse(annotations['validation.policy.admission.k8s.io/validation_failure']!)).toEqual([
      { message: 'bad name', policy: 'audited', binding: 'audited', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
    expect(annotations['authorization.k8s.io/decision']).toBe('allow');
  });

  it('completes a Metadata event\'s object reference from the object the create or update decoded', async () => {
    const base = '/api/v1/namespaces/default/configmaps';
    expect((await t.request('POST', base, { headers: { 'Audit-ID': 'meta-create' }, body: { metadata: { name: 'meta-ref' }, data: { a: '1' } } })).status).toBe(201);
    const got = await t.request('GET', `${base}/meta-ref`);
    const rv = got.json.metadata.resourceVersion;
    const uid = got.json.metadata.uid;
    expect((await t.request('PUT', `${base}/meta-ref`, { headers: { 'Audit-ID': 'meta-update' }, body: { metadata: { name: 'meta-ref', uid, resourceVersion: rv }, data: { a: '2' } } })).status).toBe(200);
    expect((await t.request('POST', base, { headers: { 'Audit-ID': 'meta-generated' }, body: { metadata: { generateName: 'meta-' } } })).status).toBe(201);
    const refOf = async (id: string) => {
      const [line] = await events((e) => e.auditID === id && e.stage === 'ResponseComplete');
      const e = JSON.parse(line!);
      expect(e.level).toBe('Metadata');
      expect(e.requestObject).toBeUndefined();
      return e.objectRef;
    };
    expect(await refOf('meta-create')).toEqual({ resource: 'configmaps', namespace: 'default', name: 'meta-ref', apiVersion: 'v1' });
    expect(await refOf('meta-update')).toEqual({ resource: 'configmaps', namespace: 'default', name: 'meta-ref', uid, apiVersion: 'v1', resourceVersion: rv });
    // The name is generated after the request's object is logged: the reference has none.
    expect(await refOf('meta-generated')).toEqual({ resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
  });

  it('counts levels and events in kube\'s audit metrics', async () => {
    const m = parsePromText((await t.request('GET', '/metrics')).text);
    expect(sampleValue(m, 'apiserver_audit_level_total', { level: 'RequestResponse' })).toBeGreaterThanOrEqual(3);
    expect(sampleValue(m, 'apiserver_audit_level_total', { level: 'Request' })).toBeGreaterThanOrEqual(3);
    expect(sampleValue(m, 'apiserver_audit_event_total', {})).toBeGreaterThanOrEqual(13);
    expect(m.get('apiserver_audit_event_total')?.help).toBe('[ALPHA] Counter of audit events generated and sent to the audit backend.');
  });
});

describe('startup', () => {
  it('refuses a policy with a bad level or stage, naming the field', async () => {
    const d = await mkdtemp(join(tmpdir(), 'kgw-audit-bad-'));
    const bad = join(d, 'policy.yaml');
    await writeFile(bad, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Nope]\nrules:\n- level: Loud\n- level: Metadata\n  resources: [{group: ""}]\n  nonResourceURLs: ["/x"]\n');
    await expect(startTestServer({ config: { audit: auditFlags({ policyFile: bad, logPath: join(d, 'a.log') }) } })).rejects.toThrow(
      `loading audit policy file ${JSON.stringify(bad)}: omitStages[0]: Unsupported value: "Nope": supported values: "RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"; rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"; rules[1].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs`,
    );
    await rm(d, { recursive: true, force: true });
  });
});

describe('panic', () => {
  it('a handler failing with something that is not an API error is audited at the Panic stage, not ResponseComplete', async () => {
    const d = await mkdtemp(join(tmpdir(), 'kgw-audit-panic-'));
    const panicLog = join(d, 'audit.log');
    // A plugin with a defect: it throws a plain Error for one object.
    const broken = {
      name: 'Broken',
      handles: () => true,
      validate(a: { object: { metadata?: { name?: string } } | null }) {
        if (a.object?.metadata?.name === 'panic') throw new Error('boom');
      },
    };
    const s = await startTestServer({ config: { audit: auditFlags({ policyFile: POLICY, logPath: panicLog }) }, extraAdmissionPlugins: [broken as never] });
    try {
      const r = await s.request('POST', '/api/v1/namespaces/default/configmaps', { headers: { 'Audit-ID': 'panic-1' }, body: { metadata: { name: 'panic' } } });
      expect(r.status).toBe(500);
      let mine: Record<string, any>[] = [];
      for (let i = 0; i < 100 && mine.length < 2; i++) {
        await new Promise((ok) => setTimeout(ok, 20));
        const text = await readFile(panicLog, 'utf8').catch(() => '');
        mine = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)).filter((e) => e.auditID === 'panic-1');
      }
      expect(mine.map((e) => e.stage)).toEqual(['RequestReceived', 'Panic']);
      expect(mine[1]!.responseStatus).toEqual({ metadata: {}, status: 'Failure', message: "APIServer panic'd: boom", reason: 'InternalError', code: 500 });
    } finally {
      await s.close();
      await rm(d, { recursive: true, force: true });
    }
  });
});
