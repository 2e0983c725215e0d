/**
 * API Priority and Fairness through the server: the PF headers kube sends on every response, the
 * kinds' defaults and validation (messages read from kube-apiserver v1.32.4), the bootstrap
 * objects and the Dangling condition, a flood from one tenant at 10x its level's capacity while
 * another tenant and exempt traffic keep going (counts, not time), the seat a watch holds only
 * while it initializes, the debug dumps and metrics, and the fallback without APF.
 */
import http2 from 'node:http2';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { dealHand, hashFlowId } from '../../src/flowcontrol/queueset.ts';

interface H2Result {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
}

/** Many requests at once over one HTTP/2 connection, so they reach the server together. */
function h2Burst(ts: TestServer, token: string | undefined, paths: readonly string[], done: (i: number, r: H2Result) => void): Promise<H2Result[]> {
  const s = ts.server;
  const session = http2.connect(s.url, token ? { ca: s.caCert } : { ca: s.caCert, cert: s.adminCert, key: s.adminKey });
  return Promise.all(
    paths.map(
      (path, i) =>
        new Promise<H2Result>((resolve, reject) => {
          const stream = session.request({ ':path': path, ...(token ? { authorization: `Bearer ${token}` } : {}) });
          let headers: http2.IncomingHttpHeaders = {};
          let body = '';
          stream.on('response', (h) => (headers = h));
          stream.setEncoding('utf8');
          stream.on('data', (c: string) => (body += c));
          stream.on('end', () => {
            const r = { status: Number(headers[':status']), headers, body };
            done(i, r);
            resolve(r);
          });
          stream.on('error', reject);
        }),
    ),
  ).finally(() => session.close());
}

let ts: TestServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kgw-apf-'));
  const tokens = join(dir, 'tokens.csv');
  await writeFile(tokens, 'token-a,tenant-a,1001,"tenants"\ntoken-b,tenant-b,1002,"tenants"\ntoken-c,tenant-c,1003,"tenants"\n');
  // ServerCL 2: a level with 200 of 445 shares gets 1 seat.
  ts = await startTestServer({ config: { tokenAuthFile: tokens, authorizationModes: ['AlwaysAllow'], maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 } });
}, 60_000);

afterAll(async () => {
  await ts?.close();
  await rm(dir, { recursive: true, force: true });
});

const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';

describe('headers and bootstrap configuration', () => {
  it('sends the UIDs of the matched FlowSchema and PriorityLevelConfiguration on every response', async () => {
    const exemptFs = (await ts.request('GET', `${FC}/flowschemas/exempt`)).json;
    const exemptPl = (await ts.request('GET', `${FC}/prioritylevelconfigurations/exempt`)).json;
    const r = await ts.request('GET', '/api/v1/namespaces/default');
    expect(r.headers['x-kubernetes-pf-flowschema-uid']).toBe(exemptFs.metadata.uid);
    expect(r.headers['x-kubernetes-pf-prioritylevel-uid']).toBe(exemptPl.metadata.uid);
    // Anonymous: global-default, even on a 403; probes: the probes schema at the exempt level.
    const globalFs = (await ts.request('GET', `${FC}/flowschemas/global-default`)).json;
    const anon = await ts.request('GET', '/api/v1/namespaces', { anonymous: true, headers: { authorization: 'Bearer token-c' } });
    expect(anon.headers['x-kubernetes-pf-flowschema-uid']).toBe(globalFs.metadata.uid);
    const probesFs = (await ts.request('GET', `${FC}/flowschemas/probes`)).json;
    const probe = await ts.request('GET', '/readyz', { anonymous: true });
    expect(probe.headers['x-kubernetes-pf-flowschema-uid']).toBe(probesFs.metadata.uid);
    expect(probe.headers['x-kubernetes-pf-prioritylevel-uid']).toBe(exemptPl.metadata.uid);
    // A watch is answered by a hijacked response: the headers are there too.
    const w = await ts.request('GET', '/api/v1/namespaces?watch=1&timeoutSeconds=1');
    expect(w.headers['x-kubernetes-pf-flowschema-uid']).toBe(exemptFs.metadata.uid);
  });

  it('creates kube\'s mandatory and suggested objects with the autoupdate annotation and keeps Dangling=False on them', async () => {
    const fs = (await ts.request('GET', `${FC}/flowschemas`)).json.items;
    expect(fs.map((o: any) => o.metadata.name)).toEqual([
      'catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler',
      'kube-system-service-accounts', 'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election',
    ]);
    const pl = (await ts.request('GET', `${FC}/prioritylevelconfigurations`)).json.items;
    expect(pl.map((o: any) => o.metadata.name)).toEqual(['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    for (const o of [...fs, ...pl]) expect(o.metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'true' });
    const wl = pl.find((o: any) => o.metadata.name === 'workload-low');
    expect(wl.spec).toEqual({ type: 'Limited', limited: { nominalConcurrencyShares: 100, lendablePercent: 90, limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } } });
    const catchAll = fs.find((o: any) => o.metadata.name === 'catch-all');
    expect(catchAll.status.conditions).toEqual([
      { type: 'Dangling', status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "catch-all" and it exists', lastTransitionTime: expect.stringMatching(/Z$/) },
    ]);
    const k = await ts.kubectl(['get', 'flowschema', 'global-default', 'exempt']);
    expect(k.stdout.split('\n')[0]).toMatch(/^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$/);
    expect(k.stdout).toMatch(/global-default\s+global-default\s+9900\s+ByUser\s+\S+\s+False/);
    expect(k.stdout).toMatch(/exempt\s+exempt\s+1\s+<none>\s+\S+\s+False/);
  });
});

describe('kinds', () => {
  it('defaults as kube v1 does', async () => {
    const pl = await ts.request('POST', `${FC}/prioritylevelconfigurations?dryRun=All`, {
      body: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'd' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } },
    });
    expect(pl.status).toBe(201);
    expect(pl.json.spec).toEqual({ type: 'Limited', limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } } });
    expect(pl.json.status).toEqual({});
    const fs = await ts.request('POST', `${FC}/flowschemas?dryRun=All`, {
      body: {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'FlowSchema',
        metadata: { name: 'd' },
        spec: { priorityLevelConfiguration: { name: 'x' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'x' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], clusterScope: true }] }] },
      },
    });
    expect(fs.status).toBe(201);
    expect(fs.json.spec.matchingPrecedence).toBe(1000);
    // Go writes the non-omitempty namespaces list as null.
    expect(fs.json.spec.rules[0].resourceRules[0]).toEqual({ verbs: ['get'], apiGroups: [''], resources: ['pods'], clusterScope: true, namespaces: null });
  });

  const invalid = async (kind: 'FlowSchema' | 'PriorityLevelConfiguration', name: string, spec: unknown): Promise<string> => {
    const resource = kind === 'FlowSchema' ? 'flowschemas' : 'prioritylevelconfigurations';
    const r = await ts.request('POST', `${FC}/${resource}?dryRun=All`, { body: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind, metadata: { name }, spec } });
    expect(r.status).toBe(422);
    return r.json.message;
  };

  it('refuses invalid priority levels with kube\'s messages', async () => {
    expect(await invalid('PriorityLevelConfiguration', 'apf-t1', { type: 'Limited', limited: { limitResponse: { type: 'Queue' } } })).toBe(
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "apf-t1" is invalid: spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is Limited',
    );
    expect(await invalid('PriorityLevelConfiguration', 'apf-t3', { type: 'Exempt', exempt: {} })).toBe(
      `PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "apf-t3" is invalid: spec.type: Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'`,
    );
    expect(
      await invalid('PriorityLevelConfiguration', 'apf-t5', {
        type: 'Limited',
        limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -3, limitResponse: { type: 'Queue', queuing: { queues: 0, handSize: 0, queueLengthLimit: 0 } } },
        exempt: {},
      }),
    ).toBe(
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "apf-t5" is invalid: [spec.exempt: Forbidden: must be nil if the type is Limited, spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer, spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive, spec.limited.borrowingLimitPercent: Invalid value: -3: if specified, must be a non-negative integer]',
    );
    expect(await invalid('PriorityLevelConfiguration', 'apf-t6', { type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: { queues: 3, handSize: 4 } } } })).toBe(
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "apf-t6" is invalid: spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited',
    );
    expect(await invalid('PriorityLevelConfiguration', 'apf-t7', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 60 } } } })).toBe(
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "apf-t7" is invalid: spec.limited.limitResponse.queuing.handSize: Invalid value: 60: required entropy bits of deckSize 128 and handSize 60 should not be greater than 60',
    );
    expect(await invalid('PriorityLevelConfiguration', 'apf-t8', { type: 'Foo' })).toBe(
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "apf-t8" is invalid: spec.type: Unsupported value: "Foo": supported values: "Exempt", "Limited"',
    );
  });

  it('refuses invalid flow schemas with kube\'s messages', async () => {
    const message = await invalid('FlowSchema', 'apf-t9', {
      matchingPrecedence: 1,
      distinguisherMethod: { type: 'ByFoo' },
      priorityLevelConfiguration: { name: '' },
      rules: [
        {
          subjects: [{ kind: 'Foo' }, { kind: 'ServiceAccount', serviceAccount: { name: '', namespace: '' }, user: { name: 'a' } }, { kind: 'User' }, { kind: 'Group', group: { name: '' } }],
          resourceRules: [{ verbs: ['*', 'get'], apiGroups: ['*', 'x'], resources: [], namespaces: ['Bad_NS'] }, { verbs: ['frob'] }],
          nonResourceRules: [{ verbs: [], nonResourceURLs: ['a', '/b c', '//x', '/a*', '/x/*'] }],
        },
        { subjects: [] },
      ],
    });
    // kube-apiserver v1.32.4's answer to the same object.
    expect(message).toBe(
      `FlowSchema.flowcontrol.apiserver.k8s.io "apf-t9" is invalid: [spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1, spec.distinguisherMethod.type: Unsupported value: flowcontrol.FlowDistinguisherMethod{Type:"ByFoo"}: supported values: "ByNamespace", "ByUser", spec.priorityLevelConfiguration.name: Required value: must reference a priority level, spec.rules[0].subjects[0].kind: Unsupported value: "Foo": supported values: "Group", "ServiceAccount", "User", spec.rules[0].subjects[1].serviceAccount.name: Required value, spec.rules[0].subjects[1].serviceAccount.namespace: Required value: must specify namespace for service account, spec.rules[0].subjects[1].user: Forbidden: user is forbidden when subject kind is not 'User', spec.rules[0].subjects[2].user: Required value: user is required when subject kind is 'User', spec.rules[0].subjects[3].group.name: Required value, spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if '*' is present, must not specify other verbs, spec.rules[0].resourceRules[0].apiGroups: Invalid value: []string{"*", "x"}: if '*' is present, must not specify other api groups, spec.rules[0].resourceRules[0].resources: Required value: resource rules must supply at least one resource, spec.rules[0].resourceRules[0].namespaces[0]: Invalid value: "Bad_NS": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), spec.rules[0].resourceRules[1].verbs: Unsupported value: []string{"frob"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch", spec.rules[0].resourceRules[1].apiGroups: Required value: resource rules must supply at least one api group, spec.rules[0].resourceRules[1].resources: Required value: resource rules must supply at least one resource, spec.rules[0].resourceRules[1].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace, spec.rules[0].nonResourceRules[0].verbs: Required value: verbs must contain at least one value, spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "a": must start with slash, spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/b c": must not contain white-space, spec.rules[0].nonResourceRules[0].nonResourceURLs[2]: Invalid value: "//x": must not contain double slash, spec.rules[0].nonResourceRules[0].nonResourceURLs[3]: Invalid value: "/a*": wildcard can only do suffix matching, spec.rules[1].subjects: Required value: subjects must contain at least one value, spec.rules[1]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty]`,
    );
    expect(await invalid('FlowSchema', 'apf-t10', { matchingPrecedence: 10001, priorityLevelConfiguration: { name: 'x' } })).toBe(
      'FlowSchema.flowcontrol.apiserver.k8s.io "apf-t10" is invalid: spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000',
    );
  });

  it('keeps mandatory specs fixed, except the exempt level\'s settings', async () => {
    const fs = await ts.request('PATCH', `${FC}/flowschemas/exempt?dryRun=All`, { body: { spec: { matchingPrecedence: 3 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(fs.status).toBe(422);
    expect(fs.json.message).toMatch(/^FlowSchema\.flowcontrol\.apiserver\.k8s\.io "exempt" is invalid: spec: Invalid value: .*: spec of 'exempt' must equal the fixed value$/);
    const ca = await ts.request('PATCH', `${FC}/prioritylevelconfigurations/catch-all?dryRun=All`, { body: { spec: { limited: { nominalConcurrencyShares: 3 } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(ca.json.message).toMatch(/spec of 'catch-all' must equal the fixed value$/);
    const ex = await ts.request('PATCH', `${FC}/prioritylevelconfigurations/exempt?dryRun=All`, { body: { spec: { exempt: { nominalConcurrencyShares: 5 } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(ex.status).toBe(200);
    expect(ex.json.spec.exempt).toEqual({ nominalConcurrencyShares: 5, lendablePercent: 0 });
  });

  it('marks a schema whose priority level is missing Dangling, and clears it when the level appears', async () => {
    const fsBody = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name: 'apf-dangling' },
      spec: { priorityLevelConfiguration: { name: 'apf-later' }, matchingPrecedence: 8000, rules: [{ subjects: [{ kind: 'User', user: { name: 'nobody' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/nowhere'] }] }] },
    };
    expect((await ts.request('POST', `${FC}/flowschemas`, { body: fsBody })).status).toBe(201);
    const condition = async () => {
      for (let i = 0; i < 200; i++) {
        const c = (await ts.request('GET', `${FC}/flowschemas/apf-dangling`)).json.status?.conditions?.[0];
        if (c) return c;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('no condition');
    };
    expect(await condition()).toMatchObject({ type: 'Dangling', status: 'True', reason: 'NotFound', message: 'This FlowSchema references the PriorityLevelConfiguration object named "apf-later" but there is no such object' });
    // Written as kube's config consumer writes it: a forced server-side apply of the status (entry read from kube-apiserver v1.32.4).
    const consumerEntries = async () => ((await ts.request('GET', `${FC}/flowschemas/apf-dangling`)).json.metadata.managedFields as { manager: string; subresource?: string }[]).filter((e) => e.subresource === 'status');
    const consumerEntry = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:conditions': { 'k:{"type":"Dangling"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} } } } },
      manager: 'api-priority-and-fairness-config-consumer-v1',
      operation: 'Apply',
      subresource: 'status',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    };
    expect(await consumerEntries()).toEqual([consumerEntry]);
    const k = await ts.kubectl(['get', 'flowschema', 'apf-dangling', '--no-headers']);
    expect(k.stdout).toMatch(/\s+True\s*$/);
    await ts.request('POST', `${FC}/prioritylevelconfigurations`, {
      body: { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'apf-later' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
    });
    for (let i = 0; i < 200; i++) {
      const c = (await ts.request('GET', `${FC}/flowschemas/apf-dangling`)).json.status.conditions[0];
      if (c.status === 'False') {
        expect(c).toMatchObject({ reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "apf-later" and it exists' });
        expect(await consumerEntries()).toEqual([consumerEntry]);
        break;
      }
      if (i === 199) throw new Error(`still ${JSON.stringify(c)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await ts.request('DELETE', `${FC}/flowschemas/apf-dangling`);
    await ts.request('DELETE', `${FC}/prioritylevelconfigurations/apf-later`);
  });
});

describe('a flood from one tenant', () => {
  let tenantsFsUid = '';

  beforeAll(async () => {
    // One seat (200 of 445 shares of ServerCL 2, nothing to borrow), one queue per flow (handSize 1) of 5.
    const pl = await ts.request('POST', `${FC}/prioritylevelconfigurations`, {
      body: {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'PriorityLevelConfiguration',
        metadata: { name: 'tenants' },
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 200, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 1, queueLengthLimit: 5 } } } },
      },
    });
    expect(pl.status).toBe(201);
    const fs = await ts.request('POST', `${FC}/flowschemas`, {
      body: {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'FlowSchema',
        metadata: { name: 'tenants' },
        spec: {
          priorityLevelConfiguration: { name: 'tenants' },
          matchingPrecedence: 500,
          distinguisherMethod: { type: 'ByUser' },
          rules: [{ subjects: [{ kind: 'Group', group: { name: 'tenants' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }] }],
        },
      },
    });
    expect(fs.status).toBe(201);
    tenantsFsUid = fs.json.metadata.uid;
    // The two tenants' flows land in different queues (checked, since the hands are fixed by the hash).
    expect(dealHand(hashFlowId('tenants', 'tenant-a'), 64, 1)).not.toEqual(dealHand(hashFlowId('tenants', 'tenant-b'), 64, 1));
    // Wait until the level is served (the configuration follows the watch).
    for (let i = 0; i < 100; i++) {
      const d = await ts.request('GET', '/debug/api_priority_and_fairness/dump_priority_levels');
      if (d.text.includes('\ntenants,')) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('tenants level not served');
  });

  it('rejects most of the flood with 429 while the other tenant and exempt requests are all served', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const completions: string[] = [];
    const flood = h2Burst(ts, 'token-a', Array(100).fill(path), (i, r) => completions.push(`a${r.status}`));
    const other = h2Burst(ts, 'token-b', Array(5).fill(path), (i, r) => completions.push(`b${r.status}`));
    const exempt = h2Burst(ts, undefined, Array(5).fill(path), (i, r) => completions.push(`x${r.status}`));
    const [a, b, x] = await Promise.all([flood, other, exempt]);
    expect(b.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(x.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const rejected = a.filter((r) => r.status === 429);
    const served = a.filter((r) => r.status === 200);
    expect(rejected.length + served.length).toBe(100);
    // 10x capacity (1 seat + 5 in the queue): most of the flood is turned away.
    expect(rejected.length).toBeGreaterThanOrEqual(50);
    const r429 = rejected[0]!;
    expect(r429.body).toBe('Too many requests, please try again later.\n');
    expect(r429.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(Number(r429.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(r429.headers['x-kubernetes-pf-flowschema-uid']).toBe(tenantsFsUid);
    // Counted as kube counts them.
    const m = (await ts.request('GET', '/metrics')).text;
    const sample = (re: RegExp) => Number(re.exec(m)?.[1] ?? NaN);
    expect(sample(/^apiserver_flowcontrol_rejected_requests_total\{flow_schema="tenants",priority_level="tenants",reason="queue-full"\} (\d+)$/m)).toBe(rejected.length);
    expect(sample(/^apiserver_flowcontrol_dispatched_requests_total\{flow_schema="tenants",priority_level="tenants"\} (\d+)$/m)).toBe(served.length + 5);
    expect(sample(/^apiserver_flowcontrol_nominal_limit_seats\{priority_level="tenants"\} (\d+)$/m)).toBe(1);
    expect(m).not.toMatch(/apiserver_flowcontrol_rejected_requests_total\{flow_schema="exempt"/);
    const dump = (await ts.request('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text;
    const row = dump.split('\n').find((l) => l.startsWith('tenants,'))!.split(',').map((c) => c.trim());
    // name, active queues, idle, quiescing, waiting, executing, dispatched, rejected, ...
    expect(row.slice(4, 8)).toEqual(['0', '0', String(served.length + 5), String(rejected.length)]);
    // Refused, queued and served requests all left kube's in-flight gauges (a watermark since the
    // previous scrape): the next scrape sees only itself.
    const inflight = (text: string, kind: string) => Number(new RegExp(`^apiserver_current_inflight_requests\\{request_kind="${kind}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    expect(inflight(m, 'readOnly')).toBeGreaterThanOrEqual(2);
    const again = (await ts.request('GET', '/metrics')).text;
    expect(inflight(again, 'readOnly')).toBe(1);
    expect(inflight(again, 'mutating')).toBe(0);
  });

  it('a watch holds its seat only while it initializes: the next request of the level still runs', async () => {
    const watch = http2.connect(ts.server.url, { ca: ts.server.caCert });
    const stream = watch.request({ ':path': '/api/v1/namespaces/default/configmaps?watch=1', authorization: 'Bearer token-b' });
    const status = await new Promise<number>((resolve) => stream.on('response', (h) => resolve(Number(h[':status']))));
    expect(status).toBe(200);
    try {
      // The level has one seat; with the watch open, a GET of the same level is still served.
      const [get] = await h2Burst(ts, 'token-b', ['/api/v1/namespaces/default/configmaps'], () => {});
      expect(get!.status).toBe(200);
      const dump = (await ts.request('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text;
      const row = dump.split('\n').find((l) => l.startsWith('tenants,'))!.split(',').map((c) => c.trim());
      expect(row[5]).toBe('0');
    } finally {
      stream.close();
      watch.close();
    }
  });

  it('dump_queues lists the level\'s queues in kube\'s columns', async () => {
    const d = await ts.request('GET', '/debug/api_priority_and_fairness/dump_queues');
    expect(d.headers['content-type']).toBe('text/plain; charset=utf-8');
    const lines = d.text.trim().split('\n');
    expect(lines[0]!.split(',').map((c) => c.trim())).toEqual(['PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum']);
    expect(lines.filter((l) => l.startsWith('tenants,'))).toHaveLength(64);
    expect(lines.find((l) => l.startsWith('tenants,'))).toMatch(/^tenants,\s+0,\s+0,\s+0,\s+0,\s+\d+\.\d{8}ss,\s+0,\s+0,\s+0\.00000000ss$/);
  });
});

describe('--enable-priority-and-fairness=false', () => {
  it('sends no PF headers and serves no dumps; the configuration objects are still kept, as kube keeps them', async () => {
    const off = await startTestServer({ config: { enablePriorityAndFairness: false } });
    try {
      const r = await off.request('GET', '/api/v1/namespaces/default');
      expect(r.status).toBe(200);
      expect(r.headers['x-kubernetes-pf-flowschema-uid']).toBeUndefined();
      expect((await off.request('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).status).toBe(404);
      expect((await off.request('GET', `${FC}/flowschemas`)).json.items).toHaveLength(13);
    } finally {
      await off.close();
    }
  });
});
