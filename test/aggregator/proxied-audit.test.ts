/**
 * Audit events of proxied requests, as kube-apiserver v1.32.4 writes them for a request its
 * aggregator passes to an extension server: the aggregator never decodes what goes through, so
 * even at RequestResponse an event shows no requestObject or responseObject, its responseStatus
 * only the code (a backend's Status body too), and a create's object reference no name. The
 * expected events are what the reference wrote for the same requests against the same
 * sample-apiserver (its --audit-log-path), less what differs by run (IDs, times, user, peer).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { withRegisteredSample } from './registered-sample.ts';
import type { AggregatedSetup } from './sample-fixture.ts';

const POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n  resources:\n  - group: wardle.example.com\n- level: None\n';

let s: AggregatedSetup;
withRegisteredSample((setup) => (s = setup), { auditPolicy: POLICY });

const NS = '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders';
const ref = (name?: string) => ({ resource: 'flunders', namespace: 'default', ...(name ? { name } : {}), apiGroup: 'wardle.example.com', apiVersion: 'v1alpha1' });
const ALLOW = { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' };
const pair = (verb: string, uri: string, objectRef: object, code: number) => [
  { level: 'RequestResponse', stage: 'RequestReceived', requestURI: uri, verb, objectRef },
  { level: 'RequestResponse', stage: 'ResponseComplete', requestURI: uri, verb, objectRef, responseStatus: { metadata: {}, code }, annotations: ALLOW },
];
// kube-apiserver v1.32.4's events for the four requests below.
const REFERENCE = [
  ...pair('get', `${NS}/missing`, ref('missing'), 404),
  ...pair('create', NS, ref(), 201),
  ...pair('get', `${NS}/f1`, ref('f1'), 200),
  ...pair('delete', `${NS}/f1`, ref('f1'), 200),
];

test('a proxied request is audited as kube\'s aggregator audits it: nothing of the bodies, only the code', async () => {
  const answers = [
    await s.gw.request('GET', `${NS}/missing`),
    await s.gw.request('POST', NS, { body: { apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', metadata: { name: 'f1' } } }),
    await s.gw.request('GET', `${NS}/f1`),
    await s.gw.request('DELETE', `${NS}/f1`),
  ];
  expect(answers.map((a) => a.status)).toEqual([404, 201, 200, 200]);
  // The backend's answers are Status bodies and objects: the client gets them whole.
  expect(answers[0]!.json.reason).toBe('NotFound');
  expect(answers[3]!.json.status).toBe('Success');
  const wanted = REFERENCE.length;
  let events: Record<string, unknown>[] = [];
  for (let i = 0; i < 100 && events.length < wanted; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const text = await readFile(join(s.dir, 'audit.log'), 'utf8').catch(() => '');
    events = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => String(e.requestURI).startsWith(NS));
  }
  const comparable = events.map(({ kind: _k, apiVersion: _a, auditID: _i, requestReceivedTimestamp: _r, stageTimestamp: _t, user: _u, sourceIPs: _s, userAgent: _g, ...rest }) => rest);
  expect(comparable).toEqual(REFERENCE);
});
