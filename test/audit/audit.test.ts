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
import type { AuditFlags } from '../../src/server/config.ts';
import { REFERENCE_EVENTS } from './reference-events.ts';
import { parsePromText, sampleValue } from '../metrics/prom-text.ts';

const POLICY = new URL('./audit-policy.yaml', import.meta.url).pathname;

export function auditFlags(extra: Partial<AuditFlags>): AuditFlags {
  return {
    logMaxAgeDays: 0,
    logMaxBackups: 0,
    logMaxSizeMB: 0,
    logBufferSize: 10_000,
    webhookBatchBufferSize: 10_000,
    webhookBatchMaxSize: 400,
    webhookBatchMaxWaitMs: 30_000,
    webhookBatchThrottleQps: 10,
    webhookBatchThrottleBurst: 15,
    webhookInitialBackoffMs: 10_000,
    ...extra,
  };
}

/** Values that differ between any two servers: IDs, clocks, generated names, the credential. */
function normalize(line: string): string {
  const e = JSON.parse(line) as Record<string, any>;
  e.auditID = 'ID';
  e.requestReceivedTimestamp = 'T';
  e.stageTimestamp = 'T';
  e.user = 'USER';
  const scrub = (o: any) => {
    if (!o || typeof o !== 'object') return;
    if (o.metadata) {
      for (const k of ['uid', 'resourceVersion', 'creationTimestamp']) if (typeof o.metadata[k] === 'string') o.metadata[k] = k;
      for (const m of o.metadata.managedFields ?? []) m.time = 'T';
    }
  };
  scrub(e.requestObject);
  scrub(e.responseObject);
  if (e.responseStatus?.details?.uid) e.responseStatus.details.uid = 'uid';
  return JSON.stringify(e);
}

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
