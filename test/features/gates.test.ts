/**
 * Feature gates: `--feature-gates` parsed with kube-apiserver v1.32.4's messages (read off the
 * reference binary), --help listing, the kubernetes_feature_enabled metric, and gates that really
 * turn their feature off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeatureGateError, featureGateHelpLines, parseFeatureGates, defaultFeatureGates, type FeatureSpec } from '../../src/features/index.ts';
import { FlagError, parseFlags, usage } from '../../src/server/config.ts';
import { MemoryStore } from '../../src/storage/memory-store.ts';
import type { ListOptions, ListResult } from '../../src/storage/types.ts';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { parsePromText } from '../metrics/prom-text.ts';

const refuse = (values: string[]) => {
  try {
    parseFeatureGates(values);
  } catch (err) {
    expect(err).toBeInstanceOf(FeatureGateError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${values.join(' ')}`);
};

describe('--feature-gates parsing', () => {
  it('has kube v1.32 stages and defaults', () => {
    const g = defaultFeatureGates();
    expect(g.enabled('WatchList')).toBe(true);
    expect(g.enabled('APIResponseCompression')).toBe(true);
    expect(g.enabled('CBORServingAndStorage')).toBe(false);
    expect(g.enabled('AllowUnsafeMalformedObjectDeletion')).toBe(false);
    expect(g.enabled('StructuredAuthorizationConfiguration')).toBe(true);
    expect(g.enabled('DeclarativeValidation')).toBe(true);
    expect(g.enabled('DeclarativeValidationTakeover')).toBe(false);
    expect(g.enabled('ListFromCacheSnapshot')).toBe(false);
    const byName = new Map(g.list().map((f) => [f.name, f]));
    expect(byName.get('ConsistentListFromCache')).toMatchObject({ stage: 'BETA', default: true });
    expect(byName.get('StructuredAuthorizationConfiguration')).toMatchObject({ stage: 'GA', default: true });
  });

  it('refuses with kube-apiserver messages', () => {
    expect(refuse(['StructuredAuthorizationConfiguration=false'])).toBe('cannot set feature gate StructuredAuthorizationConfiguration to false, feature is locked to true');
    expect(refuse(['Foo=true'])).toBe('unrecognized feature gate: Foo');
    expect(refuse(['WatchList'])).toBe('missing bool value for WatchList');
    expect(refuse(['AllowUnsafeMalformedObjectDeletion=maybe'])).toBe('invalid value of AllowUnsafeMalformedObjectDeletion=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
    expect(refuse(['WatchList=false,Bar=true'])).toBe('unrecognized feature gate: Bar');
    expect(refuse(['wardle:X=true'])).toBe('component not registered: wardle');
    // Gates removed from kube (or never served here) are unrecognized, as kube answers for ValidatingAdmissionPolicy.
    expect(refuse(['ValidatingAdmissionPolicy=true'])).toBe('unrecognized feature gate: ValidatingAdmissionPolicy');
    expect(refuse(['APIListChunking=false,WatchBookmark=false'])).toBe(
      '[cannot set feature gate APIListChunking to false, feature is locked to true, cannot set feature gate WatchBookmark to false, feature is locked to true]',
    );
  });

  it('accepts kube: prefixes, repeated flags (later wins), and warns for GA and deprecated gates', () => {
    const g = parseFeatureGates(['kube:WatchList=false, CBORServingAndStorage=true', 'WatchList=true,StructuredAuthorizationConfiguration=true']);
    expect(g.enabled('WatchList')).toBe(true);
    expect(g.enabled('CBORServingAndStorage')).toBe(true);
    expect(g.warnings).toEqual(['Setting GA feature gate StructuredAuthorizationConfiguration=true. It will be removed in a future release.']);
    const known: Record<string, FeatureSpec> = { Old: { stage: 'DEPRECATED', default: false } };
    expect(parseFeatureGates(['Old=true'], known).warnings).toEqual(['Setting deprecated feature gate Old=true. It will be removed in a future release.']);
  });

  it('AllAlpha and AllBeta set every gate of their stage that was not set explicitly', () => {
    const g = parseFeatureGates(['AllBeta=false,WatchList=true', 'AllAlpha=true']);
    expect(g.enabled('WatchList')).toBe(true);
    expect(g.enabled('APIResponseCompression')).toBe(false);
    expect(g.enabled('CBORServingAndStorage')).toBe(true);
    expect(g.enabled('StructuredAuthorizationConfiguration')).toBe(true);
  });

  it('stops the start through parseFlags, and --help lists the alpha and beta gates as kube does', () => {
    expect(() => parseFlags(['--feature-gates=StructuredAuthorizationConfiguration=false'])).toThrow(FlagError);
    expect(() => parseFlags(['--feature-gates=StructuredAuthenticationConfiguration=false', '--authentication-config=/x.yaml'])).toThrow(
      'set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file',
    );
    const c = parseFlags(['--feature-gates', 'WatchList=false', '--feature-gates=CBORServingAndStorage=true']);
    expect('help' in c).toBe(false);
    if (!('help' in c)) {
      expect(c.featureGates?.enabled('WatchList')).toBe(false);
      expect(c.featureGates?.enabled('CBORServingAndStorage')).toBe(true);
    }
    const lines = featureGateHelpLines();
    expect(lines).toContain('kube:APIResponseCompression=true|false (BETA - default=true)');
    expect(lines).toContain('kube:CBORServingAndStorage=true|false (ALPHA - default=false)');
    expect(lines).toContain('kube:AllAlpha=true|false (ALPHA - default=false)');
    expect(lines.some((l) => l.includes('StructuredAuthorizationConfiguration'))).toBe(false);
    const help = usage();
    expect(help).toMatch(/--feature-gates colonSeparatedMultimapStringString +Comma-separated list of component:key=value pairs/);
    expect(help).toMatch(/\n {20,}kube:WatchList=true\|false \(BETA - default=true\)\n/);
  });
});

/** Counts list reads that reach the store (the watch cache's own reads happen at start). */
class CountingStore extends MemoryStore {
  lists = 0;
  override async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    if (prefix.startsWith('/registry/configmaps/')) this.lists++;
    return super.list(prefix, opts);
  }
}

describe('gates turned off', () => {
  let t: TestServer;
  let store: CountingStore;
  beforeAll(async () => {
    store = new CountingStore({ historyMs: false });
    t = await startTestServer({
      store,
      config: { featureGates: parseFeatureGates(['APIResponseCompression=false,WatchList=false,CRDValidationRatcheting=false,ConsistentListFromCache=false']) },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('reports every gate in kubernetes_feature_enabled', async () => {
    const families = parsePromText((await t.request('GET', '/metrics')).text);
    const f = families.get('kubernetes_feature_enabled')!;
    expect(f.help).toBe('[BETA] This metric records the data about the stage and enablement of a k8s feature.');
    expect(f.type).toBe('gauge');
    const value = (name: string) => f.samples.find((s) => s.labels.name === name);
    expect(value('WatchList')).toMatchObject({ labels: { stage: 'BETA' }, value: 0 });
    expect(value('CBORServingAndStorage')).toMatchObject({ labels: { stage: 'ALPHA' }, value: 0 });
    expect(value('StructuredAuthorizationConfiguration')).toMatchObject({ labels: { stage: '' }, value: 1 });
  });

  it('APIResponseCompression=false: large lists are not gzipped', async () => {
    const ns = await t.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'gates-gz' } } });
    expect(ns.status).toBe(201);
    const big = 'x'.repeat(200 * 1024);
    expect((await t.request('POST', '/api/v1/namespaces/gates-gz/configmaps', { body: { metadata: { name: 'big' }, data: { big } } })).status).toBe(201);
    const list = await t.request('GET', '/api/v1/namespaces/gates-gz/configmaps', { headers: { 'accept-encoding': 'gzip' } });
    expect(list.status).toBe(200);
    expect(list.headers['content-encoding']).toBeUndefined();
    expect(list.json.items[0].data.big.length).toBe(big.length);
  });

  it('ConsistentListFromCache=false: consistent lists read the store', async () => {
    const before = store.lists;
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
    expect(store.lists - before).toBe(2);
    // resourceVersion=0 is still served by the cache.
    expect((await t.request('GET', '/api/v1/namespaces/default/configmaps?resourceVersion=0')).status).toBe(200);
    expect(store.lists - before).toBe(2);
  });

  it('WatchList=false: sendInitialEvents is refused as kube refuses it', async () => {
    const res = await t.request('GET', '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled');
  });

  it('CRDValidationRatcheting=false: an update keeping an invalid value is refused', async () => {
    const crd = (maxLength: number) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gts.gates.example.com' },
      spec: {
        group: 'gates.example.com',
        scope: 'Cluster',
        names: { plural: 'gts', kind: 'Gt' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { name: { type: 'string', maxLength }, other: { type: 'string' } } } } } } }],
      },
    });
    expect((await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd(10) })).status).toBe(201);
    const create = async () => t.request('POST', '/apis/gates.example.com/v1/gts', { body: { apiVersion: 'gates.example.com/v1', kind: 'Gt', metadata: { name: 'g1' }, spec: { name: 'abcdefgh' } } });
    let created = await create();
    for (let i = 0; i < 200 && created.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 20));
      created = await create();
    }
    expect(created.status).toBe(201);
    const tightened = await t.request('PATCH', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gts.gates.example.com', {
      body: [{ op: 'replace', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/name/maxLength', value: 5 }],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(tightened.status).toBe(200);
    let res;
    for (let i = 0; i < 200; i++) {
      res = await t.request('PATCH', '/apis/gates.example.com/v1/gts/g1', { body: { spec: { other: 'y' } }, headers: { 'content-type': 'application/merge-patch+json' } });
      if (res.status === 422) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(res!.status).toBe(422);
    expect(res!.json.message).toBe('Gt.gates.example.com "g1" is invalid: spec.name: Too long: may not be more than 5 bytes');
  });
});
