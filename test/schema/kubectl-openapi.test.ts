/**
 * End to end with the real kubectl: a tiny fastify server on 127.0.0.1 serves minimal legacy
 * discovery plus our /openapi documents, and kubectl explain / apply --validate=strict run against it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceType } from '../../src/api/types.ts';
import { buildOpenApiV2, buildOpenApiV3GroupVersion, buildOpenApiV3Index, groupVersions, openApiHash, v3GroupVersionPath } from '../../src/schema/openapi.ts';
import { allTypes } from './sample-types.ts';

const run = promisify(execFile);

function resourceList(types: readonly ResourceType[], groupVersion: string) {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: types.flatMap((t) => {
      const main = { name: t.resource, singularName: t.singular, namespaced: t.namespaced, kind: t.kind, verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: [...t.shortNames] };
      return t.hasStatus ? [main, { name: `${t.resource}/status`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] }] : [main];
    }),
  };
}

describe('kubectl against the published OpenAPI', () => {
  let app: FastifyInstance;
  let server = '';
  let dir = '';
  const requested: string[] = [];
  const created: { url: string; body: unknown }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schema-kubectl-'));
    const docs = new Map<string, string>();
    for (const { group, version } of groupVersions(allTypes)) docs.set(v3GroupVersionPath(group, version), JSON.stringify(buildOpenApiV3GroupVersion(allTypes, group, version)));
    const index = JSON.stringify(buildOpenApiV3Index(allTypes, (g, v) => openApiHash(docs.get(v3GroupVersionPath(g, v))!)));
    const v2 = JSON.stringify(buildOpenApiV2(allTypes));
    const groups = groupVersions(allTypes).filter((gv) => gv.group !== '');

    app = Fastify();
    app.addHook('onRequest', async (req) => {
      requested.push(req.url);
    });
    const json = (body: unknown) => JSON.stringify(body);
    app.get('/version', async () => ({ major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' }));
    app.get('/api', async (_req, reply) => reply.type('application/json').send(json({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] })));
    app.get('/apis', async (_req, reply) =>
      reply.type('application/json').send(
        json({
          kind: 'APIGroupList',
          apiVersion: 'v1',
          groups: groups.map((g) => ({ name: g.group, versions: [{ groupVersion: `${g.group}/${g.version}`, version: g.version }], preferredVersion: { groupVersion: `${g.group}/${g.version}`, version: g.version } })),
        }),
      ),
    );
    app.get('/api/v1', async (_req, reply) => reply.type('application/json').send(json(resourceList(allTypes.filter((t) => t.group === ''), 'v1'))));
    app.get('/apis/:group/:version', async (req, reply) => {
      const { group, version } = req.params as { group: string; version: string };
      return reply.type('application/json').send(json(resourceList(allTypes.filter((t) => t.group === group && t.version === version), `${group}/${version}`)));
    });
    app.get('/openapi/v2', async (_req, reply) => reply.type('application/json').header('etag', `"${openApiHash(v2)}"`).send(v2));
    app.get('/openapi/v3', async (_req, reply) => reply.type('application/json').send(index));
    app.get('/openapi/v3/*', async (req, reply) => {
      const doc = docs.get((req.params as { '*': string })['*']);
      if (!doc) return reply.code(404).send();
      return reply.type('application/json').header('etag', `"${openApiHash(doc)}"`).send(doc);
    });
    app.get('/api/v1/namespaces/:ns/configmaps/:name', async (req, reply) => {
      const { name } = req.params as { name: string };
      return reply.code(404).type('application/json').send(json({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `configmaps "${name}" not found`, reason: 'NotFound', details: { name, kind: 'configmaps' }, code: 404 }));
    });
    app.post('/api/v1/namespaces/:ns/configmaps', async (req, reply) => {
      created.push({ url: req.url, body: req.body });
      const obj = req.body as Record<string, any>;
      return reply.code(201).type('application/json').send(json({ ...obj, metadata: { ...obj['metadata'], uid: 'u1', resourceVersion: '1' } }));
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const addr = app.server.address();
    server = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  });

  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = (...args: string[]) =>
    run('kubectl', [`--server=${server}`, `--cache-dir=${join(dir, 'cache')}`, ...args], {
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, KUBECONFIG: join(dir, 'missing-kubeconfig') },
      timeout: 60_000,
    });

  it('explains a map field of a core kind', async () => {
    const { stdout } = await kubectl('explain', 'configmap.data');
    expect(stdout).toContain('KIND:       ConfigMap');
    expect(stdout).toContain('VERSION:    v1');
    expect(stdout).toContain('FIELD: data <map[string]string>');
    expect(stdout).toContain('Data contains the configuration data.');
  }, 60_000);

  it('explains a nested field of a custom kind and its metadata reference', async () => {
    const spec = await kubectl('explain', 'crontabs.spec');
    expect(spec.stdout).toContain('GROUP:      stable.example.com');
    expect(spec.stdout).toContain('KIND:       CronTab');
    expect(spec.stdout).toMatch(/cronSpec\s+<string> -required-/);
    expect(spec.stdout).toMatch(/policy\s+<string>\n\s+enum: Allow, Forbid/);
    expect(spec.stdout).toMatch(/ports\s+<\[\]Object>/);
    const port = await kubectl('explain', 'crontab.spec.ports.port');
    expect(port.stdout).toContain('FIELD: port <integer>');
    const meta = await kubectl('explain', 'cm.metadata');
    expect(meta.stdout).toContain('FIELD: metadata <ObjectMeta>');
    expect(meta.stdout).toMatch(/labels\s+<map\[string\]string>/);
  }, 60_000);

  it('lets apply --validate=strict rely on server-side field validation', async () => {
    const file = join(dir, 'cm.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  namespace: default\ndata:\n  a: b\n');
    requested.length = 0;
    const { stdout } = await kubectl('apply', '--validate=strict', '-f', file);
    expect(stdout).toContain('configmap/demo created');
    expect(created).toHaveLength(1);
    expect(created[0]!.url).toContain('fieldValidation=Strict');
    expect(requested.some((u) => u.startsWith('/openapi/v3/api/v1'))).toBe(true);
    // No fallback to client-side validation, which would need the v2 document.
    expect(requested.some((u) => u.startsWith('/openapi/v2'))).toBe(false);
  }, 60_000);
});
