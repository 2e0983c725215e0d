/**
 * Deprecation signals: kube's Warning text for deprecated built-in versions (deprecation.WarningMessage)
 * and custom resource versions, and apiserver_requested_deprecated_apis after a request to one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deprecationOf } from '../../src/features/deprecation.ts';
import { configMapType } from '../../src/api/kinds/configmap.ts';
import type { ResourceType } from '../../src/api/types.ts';
import { collectWatch, startTestServer, type TestServer } from '../server/harness.ts';
import { createDeprecatedCrd } from './deprecated-crd.ts';
import { parsePromText } from '../metrics/prom-text.ts';

describe('deprecationOf', () => {
  it("words a built-in version's lifecycle as kube does", () => {
    const flowSchemas = {
      ...configMapType,
      group: 'flowcontrol.apiserver.k8s.io',
      version: 'v1beta3',
      resource: 'flowschemas',
      kind: 'FlowSchema',
      lifecycle: { deprecated: [1, 29], removed: [1, 32], replacement: { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'FlowSchema' } },
    } as ResourceType;
    expect(deprecationOf(flowSchemas)).toEqual({
      warning: 'flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.apiserver.k8s.io/v1 FlowSchema',
      removedRelease: '1.32',
    });
    expect(deprecationOf({ ...configMapType, version: 'v1beta1', lifecycle: { deprecated: [1, 30] } } as ResourceType)).toEqual({ warning: 'v1beta1 ConfigMap is deprecated in v1.30+', removedRelease: '' });
    expect(deprecationOf(configMapType)).toBeUndefined();
  });
});

describe('requests to a deprecated version', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('get the Warning and set apiserver_requested_deprecated_apis', async () => {
    expect(await createDeprecatedCrd(t, '/apis/dep.example.com/v1/namespaces/default/olds')).toBe(200);
    const list = await t.request('GET', '/apis/dep.example.com/v1beta1/namespaces/default/olds');
    expect(list.status).toBe(200);
    expect(list.headers.warning).toBe('299 - "dep.example.com/v1beta1 Old is deprecated; use dep.example.com/v1 Old"');
    expect((await t.request('GET', '/apis/dep.example.com/v1/namespaces/default/olds')).headers.warning).toBeUndefined();
    const families = parsePromText((await t.request('GET', '/metrics')).text);
    const f = families.get('apiserver_requested_deprecated_apis')!;
    expect(f.help).toBe('[STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.');
    expect(f.samples).toEqual([{ name: 'apiserver_requested_deprecated_apis', labels: { group: 'dep.example.com', version: 'v1beta1', resource: 'olds', subresource: '', removed_release: '' }, value: 1 }]);
  });

  it('a watch of it carries the Warning with the headers set before it started (Audit-Id, flow-control UIDs)', async () => {
    // The CRD of the test before.
    const w = await collectWatch(t.server, '/apis/dep.example.com/v1beta1/namespaces/default/olds?watch=true&timeoutSeconds=1', () => true, { timeoutMs: 3000 });
    expect(w.status).toBe(200);
    expect(w.headers['warning']).toBe('299 - "dep.example.com/v1beta1 Old is deprecated; use dep.example.com/v1 Old"');
    expect(w.headers['content-type']).toBe('application/json');
    expect(w.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(w.headers['x-kubernetes-pf-flowschema-uid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(w.headers['x-kubernetes-pf-prioritylevel-uid']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
