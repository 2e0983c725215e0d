/**
 * End to end: the real k8s.io/sample-apiserver v0.32.4 behind the gateway, driven by the real
 * kubectl through the gateway (issue 16 item 5), plus the proxy's identity rules (item 4).
 */
import https from 'node:https';
import { describe, expect, test } from 'vitest';
import { type AggregatedSetup } from './sample-fixture.ts';
import { withRegisteredSample } from './registered-sample.ts';
import { createCertificateAuthority, issueClientCertificate } from '../../src/server/certs.ts';

let s: AggregatedSetup;

// The sample runs as a service account with only the RBAC the README's registration steps grant.
withRegisteredSample((setup) => (s = setup), { identity: 'serviceaccount' });

const flunder = (name: string) => `apiVersion: wardle.example.com/v1alpha1
kind: Flunder
metadata:
  name: ${name}
  namespace: default
spec:
  reference: ""
`;

/** A raw request to the gateway with a chosen client certificate (or none) and headers. */
function rawRequest(path: string, opts: { cert?: string; key?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${s.gw.server.url}${path}`, { ca: s.gw.server.caCert, cert: opts.cert, key: opts.key, headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sample-apiserver behind the gateway', () => {
  test('kubectl get apiservices shows it Available, with kube\'s columns', async () => {
    const k = await s.gw.kubectl(['get', 'apiservices']);
    expect(k.code).toBe(0);
    expect(k.stdout.split('\n')[0]).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    expect(k.stdout).toMatch(/^v1alpha1\.wardle\.example\.com\s+wardle\/api\s+True\s+\d+s$/m);
    expect(k.stdout).toMatch(/^v1\.\s+Local\s+True\s+/m);
    const cond = (await s.gw.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.wardle.example.com')).json.status.conditions[0];
    expect(cond).toMatchObject({ type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' });
  });

  test('kubectl api-resources lists flunders and fischers', async () => {
    const k = await s.gw.kubectl(['api-resources', '--api-group=wardle.example.com']);
    expect(k.code).toBe(0);
    expect(k.stderr).toBe('');
    expect(k.stdout).toMatch(/^flunders\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder$/m);
    expect(k.stdout).toMatch(/^fischers\s+wardle\.example\.com\/v1alpha1\s+false\s+Fischer$/m);
  });

  test('create, get, list, watch and delete flunders with kubectl', async () => {
    const created = await s.gw.kubectl(['create', '-f', '-'], { input: flunder('one') });
    expect(created.stdout).toContain('flunder.wardle.example.com/one created');
    const got = await s.gw.kubectl(['get', 'flunder', 'one', '-n', 'default', '-o', 'json']);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ kind: 'Flunder', metadata: { name: 'one', namespace: 'default' } });
    const list = await s.gw.kubectl(['get', 'flunders', '-n', 'default']);
    expect(list.stdout).toMatch(/^one\s+/m);
    // A watch streams through the proxy: the create made after it starts arrives.
    const watch = s.gw.kubectl(['get', 'flunders', '-n', 'default', '-w', '-o', 'name', '--request-timeout=8s']);
    await new Promise((r) => setTimeout(r, 1500));
    await s.gw.kubectl(['create', '-f', '-'], { input: flunder('two') });
    const watched = await watch;
    // The initial list (one), then the watch event of the later create (two).
    expect(watched.stdout.trim().split('\n')).toEqual(['flunder.wardle.example.com/one', 'flunder.wardle.example.com/two']);
    const deleted = await s.gw.kubectl(['delete', 'flunder', 'one', 'two', '-n', 'default']);
    expect(deleted.stdout).toContain('flunder.wardle.example.com "one" deleted');
    const after = await s.gw.kubectl(['get', 'flunder', 'one', '-n', 'default']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('flunders.wardle.example.com "one" not found');
  });

  test('a user without RBAC rights is refused by the gateway with kube\'s 403; with rights it succeeds', async () => {
    const denied = await s.gw.kubectl(['get', 'flunders', '-n', 'default', '--as=jane']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('flunders.wardle.example.com is forbidden: User "jane" cannot list resource "flunders" in API group "wardle.example.com" in the namespace "default"');
    const role = await s.gw.kubectl(['create', 'role', 'flunder-reader', '-n', 'default', '--verb=get,list,create', '--resource=flunders.wardle.example.com']);
    expect(role.code).toBe(0);
    const binding = await s.gw.kubectl(['create', 'rolebinding', 'jane-flunders', '-n', 'default', '--role=flunder-reader', '--user=jane']);
    expect(binding.code).toBe(0);
    // The sample-apiserver asks the gateway (SubjectAccessReview) as well: both must allow.
    let allowed = { code: 1, stdout: '', stderr: '' };
    for (let i = 0; i < 20 && allowed.code !== 0; i++) {
      allowed = await s.gw.kubectl(['get', 'flunders', '-n', 'default', '--as=jane']);
      if (allowed.code !== 0) await new Promise((r) => setTimeout(r, 250));
    }
    expect(allowed.code).toBe(0);
    const made = await s.gw.kubectl(['create', '-f', '-', '--as=jane'], { input: flunder('janes') });
    expect(made.stdout).toContain('flunder.wardle.example.com/janes created');
    // The backend saw jane, not the gateway: the object's managed fields name kubectl, and the sample authorized jane (a delete is not granted).
    const refused = await s.gw.kubectl(['delete', 'flunder', 'janes', '-n', 'default', '--as=jane']);
    expect(refused.stderr).toContain('User "jane" cannot delete resource "flunders"');
  });

  test('identity headers from a client are stripped: the backend sees the authenticated user only', async () => {
    // An anonymous client claiming to be admin via X-Remote-User: anonymous is authorized (and refused) as itself.
    const spoof = await rawRequest('/apis/wardle.example.com/v1alpha1/namespaces/default/flunders', { headers: { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' } });
    expect(spoof.status).toBe(403);
    expect(spoof.text).toContain('User \\"system:anonymous\\" cannot list resource \\"flunders\\"');
  });

  test('a client certificate signed by the front-proxy CA but not named in --requestheader-allowed-names is refused', async () => {
    const stolen = await issueClientCertificate({ caCert: s.frontProxyCa.cert, caKey: s.frontProxyCa.key }, { commonName: 'mallory' });
    const res = await rawRequest('/apis/wardle.example.com/v1alpha1/namespaces/default/flunders', { cert: stolen.cert, key: stolen.key, headers: { 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' } });
    expect(res.status).toBe(401);
    // A certificate of another CA entirely asserts nothing either.
    const other = await createCertificateAuthority('other-ca');
    const foreign = await issueClientCertificate({ caCert: other.cert, caKey: other.key }, { commonName: 'front-proxy-client' });
    const res2 = await rawRequest('/apis/wardle.example.com/v1alpha1/namespaces/default/flunders', { cert: foreign.cert, key: foreign.key, headers: { 'X-Remote-User': 'admin' } });
    expect(res2.status).toBe(401);
  });

  test('the sample runs its own priority and fairness on the gateway\'s flow-control objects, as against kube-apiserver', async () => {
    // Asked directly (the gateway's client CA is the one it publishes for extension servers), the
    // sample classifies the admin (system:masters) by the gateway's stored `exempt` FlowSchema.
    const exempt = await s.gw.request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt');
    expect(exempt.status).toBe(200);
    const direct = await new Promise<{ status: number; flowSchema: unknown }>((resolve, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port: s.samplePort, path: '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders', ca: s.sampleCa.cert, servername: 'api.wardle.svc', cert: s.gw.server.adminCert, key: s.gw.server.adminKey, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, flowSchema: res.headers['x-kubernetes-pf-flowschema-uid'] }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(direct.status).toBe(200);
    expect(direct.flowSchema).toBe(exempt.json.metadata.uid);
  });

  test('kubectl explain reads the backend\'s OpenAPI v3 through the gateway', async () => {
    const index = await s.gw.request('GET', '/openapi/v3');
    const url = String(JSON.parse(index.text).paths['apis/wardle.example.com/v1alpha1'].serverRelativeURL);
    expect(url).toMatch(/^\/openapi\/v3\/apis\/wardle\.example\.com\/v1alpha1\?hash=[0-9A-F]+$/);
    const doc = await s.gw.request('GET', url);
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.json.components.schemas).filter((k) => k.endsWith('v1alpha1.Flunder'))).toHaveLength(1);
    const k = await s.gw.kubectl(['explain', 'flunders.spec']);
    expect(k.code).toBe(0);
    expect(k.stdout).toContain('KIND:       Flunder');
    expect(k.stdout).toContain('reference');
  });

  test('discovery: /apis lists the group after the built-in ones; aggregated discovery carries its resources', async () => {
    const legacy = await s.gw.request('GET', '/apis');
    const names = legacy.json.groups.map((g: { name: string }) => g.name);
    expect(names[0]).toBe('apiregistration.k8s.io');
    expect(names.at(-1)).toBe('wardle.example.com');
    const group = await s.gw.request('GET', '/apis/wardle.example.com');
    expect(group.json).toMatchObject({ kind: 'APIGroup', name: 'wardle.example.com', preferredVersion: { version: 'v1alpha1' } });
    const agg = await s.gw.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const wardle = agg.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'wardle.example.com');
    expect(wardle.versions[0].freshness).toBe('Current');
    expect(wardle.versions[0].resources.map((r: { resource: string }) => r.resource).sort()).toEqual(['fischers', 'flunders']);
  });
});
