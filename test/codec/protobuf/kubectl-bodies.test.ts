// Runs the real kubectl against a tiny discovery-only HTTP server on 127.0.0.1, captures the
// protobuf bodies it POSTs, and checks that decodeProtobufObject yields exactly the JSON kubectl
// itself prints for the same object (`--dry-run=client -o json`, Go's own JSON encoding).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../../../src/codec/protobuf/index.ts';
import { FIXTURES } from './fixtures.ts';

const run = promisify(execFile);

interface Captured {
  readonly url: string;
  readonly contentType: string;
  readonly body: Uint8Array;
}

const resourceList = (groupVersion: string, resources: readonly (readonly [string, string, boolean])[]) => ({
  kind: 'APIResourceList',
  groupVersion,
  resources: resources.map(([name, kind, namespaced]) => ({
    name,
    singularName: kind.toLowerCase(),
    namespaced,
    kind,
    verbs: ['create', 'get', 'list'],
  })),
});

const DISCOVERY: Record<string, unknown> = {
  '/api': { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] },
  '/apis': {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      {
        name: 'apps',
        versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      },
      {
        name: 'rbac.authorization.k8s.io',
        versions: [{ groupVersion: 'rbac.authorization.k8s.io/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'rbac.authorization.k8s.io/v1', version: 'v1' },
      },
    ],
  },
  '/api/v1': resourceList('v1', [
    ['namespaces', 'Namespace', false],
    ['pods', 'Pod', true],
    ['configmaps', 'ConfigMap', true],
    ['secrets', 'Secret', true],
    ['serviceaccounts', 'ServiceAccount', true],
  ]),
  '/apis/rbac.authorization.k8s.io/v1': resourceList('rbac.authorization.k8s.io/v1', [
    ['clusterroles', 'ClusterRole', false],
    ['roles', 'Role', true],
    ['rolebindings', 'RoleBinding', true],
    ['clusterrolebindings', 'ClusterRoleBinding', false],
  ]),
  '/apis/apps/v1': resourceList('apps/v1', [['deployments', 'Deployment', true]]),
  '/version': { major: '1', minor: '32', gitVersion: 'v1.32.0' },
};

let server: http.Server;
/** When set, POSTs are answered with this object (in protobuf) instead of an echo. */
let reply: Record<string, unknown> | undefined;
let port = 0;
let home = '';
const posts: Captured[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'kubectl-home-'));
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'POST') {
        posts.push({ url: path, contentType: String(req.headers['content-type']), body: new Uint8Array(Buffer.concat(chunks)) });
        // Answer in protobuf too, echoing the object: kubectl must be able to read it back.
        const { object } = decodeProtobufObject(new Uint8Array(Buffer.concat(chunks)));
        res.writeHead(201, { 'content-type': PROTOBUF_MEDIA_TYPE });
        res.end(Buffer.from(encodeProtobufObject(reply ?? object)));
        return;
      }
      const doc = DISCOVERY[path];
      res.writeHead(doc ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(doc ?? { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(home, { recursive: true, force: true });
});

async function kubectl(args: readonly string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--server', `http://127.0.0.1:${port}`, ...args], {
    env: { ...process.env, HOME: home, KUBECONFIG: join(home, 'none') },
    timeout: 60_000,
  });
  return stdout;
}

/** Creates for real (capturing the protobuf body) and in dry-run (Go's JSON of the same object). */
async function captureAndOracle(args: readonly string[]): Promise<{ readonly captured: Captured; readonly goJson: unknown; readonly printed: string }> {
  const before = posts.length;
  const printed = await kubectl(args);
  expect(posts.length).toBe(before + 1);
  const goJson = JSON.parse(await kubectl([...args, '--dry-run=client', '-o', 'json']));
  return { captured: posts[before]!, goJson, printed };
}

const CASES: readonly { readonly name: string; readonly args: readonly string[]; readonly url: string; readonly expected?: Record<string, unknown> }[] = [
  {
    name: 'namespace',
    args: ['create', 'namespace', 'team-a'],
    url: '/api/v1/namespaces',
    expected: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'team-a', creationTimestamp: null }, spec: {}, status: {} },
  },
  {
    name: 'configmap',
    args: ['create', 'configmap', 'cm1', '-n', 'default', '--from-literal=a=b', '--from-literal=c=d e'],
    url: '/api/v1/namespaces/default/configmaps',
    expected: {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'cm1', namespace: 'default', creationTimestamp: null },
      data: { a: 'b', c: 'd e' },
    },
  },
  {
    name: 'secret generic',
    args: ['create', 'secret', 'generic', 's1', '-n', 'default', '--from-literal=user=admin', '--from-literal=pw=s3cr3t!'],
    url: '/api/v1/namespaces/default/secrets',
    expected: {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's1', namespace: 'default', creationTimestamp: null },
      // kubectl leaves type empty (the server defaults it to Opaque), so Go's JSON omits it.
      data: { pw: Buffer.from('s3cr3t!').toString('base64'), user: Buffer.from('admin').toString('base64') },
    },
  },
  {
    name: 'serviceaccount',
    args: ['create', 'serviceaccount', 'robot', '-n', 'default'],
    url: '/api/v1/namespaces/default/serviceaccounts',
    expected: { kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'robot', namespace: 'default', creationTimestamp: null } },
  },
  {
    name: 'clusterrole',
    args: ['create', 'clusterrole', 'reader', '--verb=get,list', '--resource=configmaps,secrets', '--resource-name=one'],
    url: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    expected: {
      kind: 'ClusterRole',
      apiVersion: 'rbac.authorization.k8s.io/v1',
      metadata: { name: 'reader', creationTimestamp: null },
      rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'secrets'], resourceNames: ['one'] }],
    },
  },
  {
    name: 'role',
    args: ['create', 'role', 'pod-reader', '-n', 'default', '--verb=get', '--verb=watch', '--resource=pods,deployments.apps'],
    url: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
  },
  {
    name: 'rolebinding',
    args: ['create', 'rolebinding', 'bind', '-n', 'default', '--role=pod-reader', '--user=alice', '--group=devs', '--serviceaccount=default:robot'],
    url: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
  },
  {
    name: 'clusterrolebinding',
    args: ['create', 'clusterrolebinding', 'cbind', '--clusterrole=reader', '--user=bob'],
    url: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  },
  {
    name: 'clusterrole with an aggregation rule',
    args: ['create', 'clusterrole', 'agg', '--aggregation-rule=rbac.example.com/aggregate=true,tier=web'],
    url: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  },
];

describe('bodies posted by kubectl v1.32', () => {
  for (const c of CASES) {
    it(`decodes kubectl create ${c.name} exactly as kubectl's own JSON`, async () => {
      const { captured, goJson, printed } = await captureAndOracle(c.args);
      expect(captured.url).toBe(c.url);
      expect(captured.contentType).toBe(PROTOBUF_MEDIA_TYPE);
      expect(Array.from(captured.body.subarray(0, 4))).toEqual([0x6b, 0x38, 0x73, 0x00]);
      const decoded = decodeProtobufObject(captured.body);
      if (c.expected) expect(decoded.object).toEqual(c.expected);
      expect(decoded.object).toEqual(goJson);
      expect(JSON.stringify(decoded.object)).toBe(JSON.stringify(goJson));
      // kubectl read our protobuf response back and printed the created object's name.
      expect(printed).toContain('created');
    }, 120_000);
  }
});

describe('responses kubectl reads back', () => {
  // kubectl asks for protobuf responses; it decodes ours with Go's generated code and prints the
  // object as Go JSON, which must be the very object we encoded.
  const RESPONSES: readonly { readonly args: readonly string[]; readonly kind: string }[] = [
    { args: ['create', 'namespace', 'team-a'], kind: 'Namespace' },
    { args: ['create', 'configmap', 'cm1', '-n', 'default', '--from-literal=a=b'], kind: 'ConfigMap' },
    { args: ['create', 'secret', 'generic', 's1', '-n', 'default', '--from-literal=a=b'], kind: 'Secret' },
    { args: ['create', 'serviceaccount', 'robot', '-n', 'default'], kind: 'ServiceAccount' },
    { args: ['create', 'role', 'reader', '-n', 'default', '--verb=get', '--resource=pods'], kind: 'Role' },
    { args: ['create', 'clusterrole', 'agg', '--verb=get', '--resource=pods'], kind: 'ClusterRole' },
    { args: ['create', 'rolebinding', 'bind', '-n', 'default', '--role=reader', '--user=alice'], kind: 'RoleBinding' },
    { args: ['create', 'clusterrolebinding', 'cbind', '--clusterrole=reader', '--user=bob'], kind: 'ClusterRoleBinding' },
  ];
  for (const r of RESPONSES) {
    for (const fixture of FIXTURES.filter((f) => f.kind === r.kind)) {
      it(`kubectl prints our protobuf ${r.kind} ${(fixture.metadata as { name: string }).name} as the same JSON`, async () => {
        reply = fixture;
        try {
          const out = await kubectl([...r.args, '-o', 'json', '--show-managed-fields']);
          expect(JSON.parse(out)).toEqual(fixture);
        } finally {
          reply = undefined;
        }
      }, 120_000);
    }
  }
});
