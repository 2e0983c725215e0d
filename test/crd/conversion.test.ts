/**
 * Conversion webhooks: a CRD with two versions converted by a webhook over TLS on loopback.
 * Round trips through reads, writes, lists (one batch call) and watches in the non-storage
 * version; kube's errors (texts recorded from kube-apiserver v1.32.4) for a webhook that fails or
 * answers garbage; ConversionReview v1beta1; storedVersions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import https from 'node:https';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { createCrd, waitFor } from './crd-setup.ts';
import { conversionCrd, startConversionWebhook, type ConversionWebhook } from './conversion-webhook.ts';

let t: TestServer;
let hook: ConversionWebhook;
const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.convh.example.com';
const ns = (v: string) => `/apis/convh.example.com/${v}/namespaces/default/widgets`;

beforeAll(async () => {
  [t, hook] = await Promise.all([startTestServer(), startConversionWebhook()]);
});
afterAll(async () => {
  await t.close();
  await hook.close();
});

/** Points the CRD's webhook at another path and waits until the served types use it. */
async function useHook(path: string, reviewVersions = ['v1']): Promise<void> {
  const current = (await t.request('GET', CRD)).json;
  current.spec.conversion.webhook = { ...current.spec.conversion.webhook, conversionReviewVersions: reviewVersions, clientConfig: { url: hook.url(path), caBundle: hook.caBundle } };
  expect((await t.request('PUT', CRD, { body: current })).status).toBe(200);
  const before = hook.received.length;
  await waitFor(async () => {
    await t.request('GET', `${ns('v2')}/probe`);
    return hook.received.slice(before).some((r) => r.path === path) ? true : undefined;
  });
}

const widget = (v: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: `convh.example.com/${v}`, kind: 'Widget', metadata: { name }, spec });

describe('conversion webhooks', () => {
  it('converts writes and reads in the non-storage version, with storage defaults applied before conversion', async () => {
    await createCrd(t, conversionCrd(hook.url('/convert'), hook.caBundle));
    // A probe object the helper above reads to see which webhook path is in use.
    expect((await t.request('POST', ns('v1'), { body: widget('v1', 'probe', { size: 0 }) })).status).toBe(201);

    const created = await t.request('POST', ns('v2'), { body: widget('v2', 'w1', { dimensions: { size: 3 } }) });
    expect(created.status).toBe(201);
    expect(created.json.apiVersion).toBe('convh.example.com/v2');
    // Stored in v1, read back: v1's default (color) applied before converting, as kube answers.
    expect(created.json.spec).toEqual({ color: 'grey', dimensions: { size: 3 } });
    const toStorage = hook.received.find((r) => r.review.request.desiredAPIVersion === 'convh.example.com/v1');
    expect(toStorage?.review).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { objects: [{ apiVersion: 'convh.example.com/v2', spec: { dimensions: { size: 3 } } }] } });

    const v1 = await t.request('GET', `${ns('v1')}/w1`);
    expect(v1.json.apiVersion).toBe('convh.example.com/v1');
    expect(v1.json.spec).toEqual({ color: 'grey', size: 3 });
    const v2 = await t.request('GET', `${ns('v2')}/w1`);
    expect(v2.json.spec).toEqual({ color: 'grey', dimensions: { size: 3 } });
    expect(v2.json.metadata.resourceVersion).toBe(v1.json.metadata.resourceVersion);

    // An update in v2 (merge patch) goes through the webhook both ways.
    const patched = await t.request('PATCH', `${ns('v2')}/w1`, { body: { spec: { dimensions: { size: 5 } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status).toBe(200);
    expect(patched.json.spec).toEqual({ color: 'grey', dimensions: { size: 5 } });
    expect((await t.request('GET', `${ns('v1')}/w1`)).json.spec).toEqual({ color: 'grey', size: 5 });
  });

  it('applies server-side and renders Tables in the non-storage version', async () => {
    const apply = (name: string, size: number) =>
      t.request('PATCH', `${ns('v2')}/${name}?fieldManager=ssa-test`, {
        body: { apiVersion: 'convh.example.com/v2', kind: 'Widget', metadata: { name }, spec: { dimensions: { size } } },
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    const created = await apply('w-ssa', 4);
    expect(created.status).toBe(201);
    expect(created.json.spec).toEqual({ color: 'grey', dimensions: { size: 4 } });
    const entry = created.json.metadata.managedFields.find((m: { manager: string }) => m.manager === 'ssa-test');
    // Ownership is recorded in the version the manager wrote.
    expect(entry).toMatchObject({ operation: 'Apply', apiVersion: 'convh.example.com/v2', fieldsV1: { 'f:spec': { 'f:dimensions': { 'f:size': {} } } } });
    const again = await apply('w-ssa', 6);
    expect(again.status).toBe(200);
    expect((await t.request('GET', `${ns('v1')}/w-ssa`)).json.spec).toEqual({ color: 'grey', size: 6 });
    const table = await t.request('GET', `${ns('v2')}/w-ssa`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.status).toBe(200);
    expect(table.json.kind).toBe('Table');
    expect(table.json.rows[0].cells[0]).toBe('w-ssa');
    expect(table.json.rows[0].object.metadata.name).toBe('w-ssa');
    const deleted = await t.request('DELETE', `${ns('v2')}/w-ssa`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.details).toMatchObject({ name: 'w-ssa', group: 'convh.example.com', kind: 'widgets' });
  });

  it('converts a list in one call, and filters on converted objects', async () => {
    for (const name of ['w2', 'w3', 'w4']) expect((await t.request('POST', ns('v1'), { body: widget('v1', name, { size: 7 }) })).status).toBe(201);
    const before = hook.received.length;
    const list = await t.request('GET', ns('v2'));
    expect(list.status).toBe(200);
    expect(list.json.apiVersion).toBe('convh.example.com/v2');
    expect(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['probe', 'w1', 'w2', 'w3', 'w4']);
    expect(list.json.items.every((i: { apiVersion: string; spec: Record<string, unknown> }) => i.apiVersion === 'convh.example.com/v2' && i.spec.size === undefined)).toBe(true);
    expect(list.json.items[2].spec).toEqual({ color: 'grey', dimensions: { size: 7 } });
    // Objects converted once are served from memory; the new ones went in one review.
    const calls = hook.received.slice(before);
    expect(calls.length).toBeLessThanOrEqual(1);
    if (calls.length === 1) expect(calls[0]!.review.request.objects.length).toBeGreaterThanOrEqual(3);
    const again = hook.received.length;
    expect((await t.request('GET', ns('v2'))).json.items).toHaveLength(5);
    expect(hook.received.length).toBe(again);
    // A paged list reads storage: the objects of each page are converted in one call.
    const page = await t.request('GET', `${ns('v2')}?limit=2&labelSelector=app%21%3Dx`);
    expect(page.status).toBe(200);
    expect(page.json.items.map((i: { apiVersion: string }) => i.apiVersion)).toEqual(['convh.example.com/v2', 'convh.example.com/v2']);
  });

  it('watches in the non-storage version', async () => {
    const events: { type: string; object: Record<string, any> }[] = [];
    let req: ReturnType<typeof https.request> | undefined;
    const seen = new Promise<void>((resolve, reject) => {
      req = https.request(`${t.server.url}${ns('v2')}?watch=1&resourceVersion=0`, { ca: t.server.caCert, cert: t.server.adminCert, key: t.server.adminKey }, (res) => {
        let buf = '';
        res.on('data', (c: Buffer) => {
          buf += c.toString();
          let nl;
          while ((nl = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line) events.push(JSON.parse(line));
            if (events.some((e) => e.type === 'DELETED')) resolve();
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    await waitFor(async () => (events.length >= 5 ? true : undefined));
    expect((await t.request('POST', ns('v1'), { body: widget('v1', 'w5', { size: 9 }) })).status).toBe(201);
    expect((await t.request('DELETE', `${ns('v1')}/w5`)).status).toBe(200);
    await seen;
    req?.destroy();
    expect(events.every((e) => e.object.apiVersion === 'convh.example.com/v2')).toBe(true);
    const added = events.find((e) => e.type === 'ADDED' && e.object.metadata.name === 'w5');
    expect(added?.object.spec).toEqual({ color: 'grey', dimensions: { size: 9 } });
    const deleted = events.find((e) => e.type === 'DELETED');
    expect(deleted?.object.metadata.name).toBe('w5');
    expect(deleted?.object.spec).toEqual({ color: 'grey', dimensions: { size: 9 } });
  });

  it('works with the real kubectl in both versions', async () => {
    const v2 = await t.kubectl(['get', 'widgets.v2.convh.example.com', 'w1', '-o', 'jsonpath={.apiVersion} {.spec.dimensions.size}']);
    expect(v2.stdout).toBe('convh.example.com/v2 5');
    const v1 = await t.kubectl(['get', 'widgets.v1.convh.example.com', 'w1', '-o', 'jsonpath={.apiVersion} {.spec.size}']);
    expect(v1.stdout).toBe('convh.example.com/v1 5');
    const table = await t.kubectl(['get', 'widgets.v2.convh.example.com']);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+AGE$/);
    expect(table.stdout).toMatch(/\nw1\s+\d+s\n/);
    const applied = await t.kubectl(['apply', '--server-side', '-f', '-'], { input: 'apiVersion: convh.example.com/v2\nkind: Widget\nmetadata: {name: w-kubectl, namespace: default}\nspec: {dimensions: {size: 8}}\n' });
    expect(applied.stdout).toContain('widget.convh.example.com/w-kubectl serverside-applied');
    expect((await t.kubectl(['get', 'widgets.v1.convh.example.com', 'w-kubectl', '-o', 'jsonpath={.spec.size}'])).stdout).toBe('8');
    expect((await t.kubectl(['delete', 'widgets.v2.convh.example.com', 'w-kubectl'])).stdout).toContain('deleted');
  });

  it('answers kube errors when the webhook fails or answers garbage, never crashes', async () => {
    const cases: [string, string][] = [
      ['/fail', 'failed: an error on the server ("internal trouble") has prevented the request from succeeding'],
      ['/garbage', "failed: couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')"],
      ['/failure', 'failed: cannot convert today'],
      ['/wrong-count', 'returned 0 objects, expected 1'],
      ['/change-name', 'returned invalid object: must have the same name: w1 != w1-x'],
      ['/close', `failed: Post "${hook.url('/close')}?timeout=30s": EOF`],
    ];
    for (const [path, text] of cases) {
      await useHook(path);
      const get = await t.request('GET', `${ns('v2')}/w1`);
      expect(get.status).toBe(500);
      expect(get.json).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message: `conversion webhook for convh.example.com/v1, Kind=Widget ${text}` });
      expect(get.json.reason).toBeUndefined();
      const list = await t.request('GET', ns('v2'));
      expect(list.status).toBe(429);
      expect(list.json).toMatchObject({ message: 'storage is (re)initializing', reason: 'TooManyRequests', details: { retryAfterSeconds: 1 } });
      const created = await t.request('POST', ns('v2'), { body: widget('v2', 'w-bad', { dimensions: { size: 1 } }) });
      expect(created.status).toBe(500);
      expect(created.json.message).toBe(`conversion webhook for convh.example.com/v2, Kind=Widget ${text.replace('w1 != w1-x', 'w-bad != w-bad-x')}`);
      // The storage version needs no conversion and is served as ever.
      expect((await t.request('GET', `${ns('v1')}/w1`)).status).toBe(200);
      if (path === '/failure') {
        const k = await t.kubectl(['get', 'widgets.v2.convh.example.com', 'w1']);
        expect(k.code).not.toBe(0);
        expect(k.stderr).toContain('Error from server: conversion webhook for convh.example.com/v1, Kind=Widget failed: cannot convert today');
      }
    }
    const badUid = await (async () => {
      await useHook('/bad-uid');
      return t.request('GET', `${ns('v2')}/w1`);
    })();
    expect(badUid.status).toBe(500);
    expect(badUid.json.message).toMatch(/^conversion webhook for convh\.example\.com\/v1, Kind=Widget failed: expected response\.uid="[0-9a-f-]{36}", got "not-the-uid"$/);
    // A service reference that resolves to nothing (kube-apiserver's words).
    const crd = (await t.request('GET', CRD)).json;
    crd.spec.conversion.webhook.clientConfig = { service: { name: 'hook', namespace: 'default', port: hook.port, path: '/convert' }, caBundle: hook.caBundle };
    expect((await t.request('PUT', CRD, { body: crd })).status).toBe(200);
    const unresolved = await waitFor(async () => {
      const r = await t.request('GET', `${ns('v2')}/w1`);
      return r.json.message?.includes('svc') ? r : undefined;
    });
    expect(unresolved.status).toBe(500);
    expect(unresolved.json.message).toBe(`conversion webhook for convh.example.com/v1, Kind=Widget failed: Post "https://hook.default.svc:${hook.port}/convert?timeout=30s": service "hook" not found`);
    // The server still serves everything else.
    expect((await t.request('GET', '/api/v1/namespaces/default')).status).toBe(200);
    // The reference resolves through the gateway's service resolver at each call: once the Service
    // exists (an ExternalName naming the webhook's host; cluster-IP routing dials it at the referenced
    // port), the same CRD converts, the certificate checked for hook.default.svc.
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } };
    expect((await t.request('POST', '/api/v1/namespaces/default/services', { body: svc })).status).toBe(201);
    const resolved = await waitFor(async () => {
      const r = await t.request('GET', `${ns('v2')}/w1`);
      return r.status === 200 ? r : undefined;
    });
    expect(resolved.json.spec).toEqual({ color: 'grey', dimensions: { size: 5 } });
    expect((await t.request('DELETE', '/api/v1/namespaces/default/services/hook')).status).toBe(200);
  });

  it('speaks ConversionReview v1beta1 when that is the version the CRD names', async () => {
    await useHook('/convert', ['v1beta1']);
    const before = hook.received.length;
    const got = await t.request('GET', `${ns('v2')}/w1`);
    expect(got.status).toBe(200);
    expect(got.json.spec).toEqual({ color: 'grey', dimensions: { size: 5 } });
    expect(hook.received.slice(before).map((r) => r.review.apiVersion)).toContain('apiextensions.k8s.io/v1beta1');
  });

  it('records every storage version written in storedVersions; objects keep theirs until rewritten', async () => {
    const crd = (await t.request('GET', CRD)).json;
    crd.spec.versions = crd.spec.versions.map((v: { name: string }) => ({ ...v, storage: v.name === 'v2' }));
    expect((await t.request('PUT', CRD, { body: crd })).status).toBe(200);
    const st = await waitFor(async () => {
      const s = (await t.request('GET', CRD)).json.status;
      return s.storedVersions.length === 2 ? s : undefined;
    });
    expect(st.storedVersions).toEqual(['v1', 'v2']);
    // Once the new types serve, a write in v1 is converted to v2 to be stored.
    await waitFor(async () => {
      const before = hook.received.length;
      const r = await t.request('POST', ns('v1'), { body: widget('v1', `w6-${Date.now()}`, { size: 2 }) });
      return r.status === 201 && hook.received.slice(before).some((x) => x.review.request.desiredAPIVersion === 'convh.example.com/v2') ? true : undefined;
    });
    // w1 was stored in v1 and is still read in both versions.
    expect((await t.request('GET', `${ns('v1')}/w1`)).json.spec).toEqual({ color: 'grey', size: 5 });
    expect((await t.request('GET', `${ns('v2')}/w1`)).json.spec).toEqual({ color: 'grey', dimensions: { size: 5 } });
  });
});
