/**
 * The deprecation audit annotation (kube's MonitorRequest): a request served for a deprecated
 * version (here a deprecated custom resource version) carries `k8s.io/deprecated: "true"` in its
 * final event only; the same request to the served non-deprecated version does not. The events
 * are compared field for field with kube-apiserver v1.32.4's log of the same two requests (policy:
 * Metadata for the group, None otherwise), after the values that differ by nature are normalized.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import type { TestServer } from '../server/harness.ts';
import { startAuditedServer, type AuditedServer } from './audited-server.ts';
import { normalize } from './event-lines.ts';
import { createDeprecatedCrd } from '../features/deprecated-crd.ts';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources: [{group: dep.example.com}]
- level: None
`;

const USER_AGENT = 'kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07';

/** kube-apiserver v1.32.4's ResponseComplete events for GET .../v1beta1/... and .../v1/... olds. */
const REFERENCE = [
  '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"d6461515-29e9-4901-9b01-510d6f4b2f8d","stage":"ResponseComplete","requestURI":"/apis/dep.example.com/v1beta1/namespaces/default/olds","verb":"list","user":{"username":"admin","groups":["system:masters","system:authenticated"]},"sourceIPs":["127.0.0.1"],"userAgent":"kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07","objectRef":{"resource":"olds","namespace":"default","apiGroup":"dep.example.com","apiVersion":"v1beta1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-28T04:03:36.277391Z","stageTimestamp":"2026-11-28T04:03:36.284543Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":"","k8s.io/deprecated":"true"}}',
  '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"89560d97-2c55-4542-a1d2-0fe332607f5c","stage":"ResponseComplete","requestURI":"/apis/dep.example.com/v1/namespaces/default/olds","verb":"list","user":{"username":"admin","groups":["system:masters","system:authenticated"]},"sourceIPs":["127.0.0.1"],"userAgent":"kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07","objectRef":{"resource":"olds","namespace":"default","apiGroup":"dep.example.com","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-28T04:03:36.380129Z","stageTimestamp":"2026-11-28T04:03:36.381516Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}',
];

let audited: AuditedServer | undefined;
let t: TestServer;
let log: string;

beforeAll(async () => {
  audited = await startAuditedServer(POLICY, 'kgw-audit-dep-');
  ({ server: t, log } = audited);
  expect(await createDeprecatedCrd(t, '/apis/dep.example.com/v1/namespaces/default/olds')).toBe(200);
}, 60_000);

afterAll(async () => {
  await audited?.close();
});

/** The log's events for `uri`, once the background writer has settled. */
async function eventsFor(uri: string): Promise<Record<string, unknown>[]> {
  let text = '';
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 40));
    const next = await readFile(log, 'utf8').catch(() => '');
    if (next === text && next.includes(uri)) break;
    text = next;
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.requestURI === uri);
}

describe('deprecation audit annotations', () => {
  it('annotate the final event of a deprecated version\'s request as kube-apiserver v1.32.4 does', async () => {
    const h = { 'user-agent': USER_AGENT };
    const old = await t.request('GET', '/apis/dep.example.com/v1beta1/namespaces/default/olds', { headers: h });
    expect(old.headers.warning).toBe('299 - "dep.example.com/v1beta1 Old is deprecated; use dep.example.com/v1 Old"');
    const current = await t.request('GET', '/apis/dep.example.com/v1/namespaces/default/olds', { headers: h });
    expect([old.status, current.status]).toEqual([200, 200]);
    const oldEvents = await eventsFor('/apis/dep.example.com/v1beta1/namespaces/default/olds');
    const currentEvents = await eventsFor('/apis/dep.example.com/v1/namespaces/default/olds');
    // Only the last of these (the readiness polls above come first) are the requests of this test.
    const lastComplete = (events: Record<string, unknown>[]) => events.filter((e) => e.stage === 'ResponseComplete').at(-1)!;
    expect(normalize(JSON.stringify(lastComplete(oldEvents)))).toBe(normalize(REFERENCE[0]!));
    expect(normalize(JSON.stringify(lastComplete(currentEvents)))).toBe(normalize(REFERENCE[1]!));
    // Added when the handler returns: RequestReceived has no annotation yet.
    const received = oldEvents.filter((e) => e.stage === 'RequestReceived');
    expect(received).toHaveLength(1);
    expect(received[0]!.annotations).toBeUndefined();
  });
});
