/**
 * What the custom-resource tests share: polling for a condition, creating a CRD and waiting until
 * its resources are served, and a minimal CRD of one schemaless version.
 */
import { expect } from 'vitest';
import type { TestServer } from '../server/harness.ts';

type Obj = Record<string, any>;

export const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Polls `fn` every 20 ms until it returns something other than undefined (about 5 s by default). */
export async function waitFor<T>(fn: () => Promise<T | undefined>, tries = 250): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('condition not met');
}

/** Polls until GET `path` answers `status`. */
export async function waitForStatus(t: TestServer, path: string, status: number): Promise<void> {
  await waitFor(async () => ((await t.request('GET', path)).status === status ? true : undefined));
}

/** The collection URL of a CRD's storage version (namespaced in `default`), from the definition itself. */
export function collectionOf(crd: Obj, version?: string): string {
  const spec = crd.spec as Obj;
  const v = version ?? (spec.versions as Obj[]).find((x) => x.storage)?.name;
  const ns = spec.scope === 'Namespaced' ? '/namespaces/default' : '';
  return `/apis/${spec.group}/${v}${ns}/${spec.names.plural}`;
}

/** Creates `crd` (expecting 201) and waits until it is Established and its collection is served. */
export async function createCrd(t: TestServer, crd: Obj): Promise<Obj> {
  const res = await t.request('POST', CRDS, { body: crd });
  expect(res.status, res.text).toBe(201);
  const name = crd.metadata.name as string;
  const established = await waitFor(async () => {
    const r = await t.request('GET', `${CRDS}/${name}`);
    const conds = (r.json?.status?.conditions ?? []) as { type: string; status: string }[];
    return conds.some((c) => c.type === 'Established' && c.status === 'True') ? r.json : undefined;
  });
  await waitForStatus(t, collectionOf(crd), 200);
  return established as Obj;
}

/** A CRD named `plural.group` with these names and versions (each given whole), namespaced unless `scope` says otherwise. */
export function crdManifest(group: string, names: { readonly plural: string; readonly kind: string; readonly singular?: string }, versions: Obj[], scope: 'Namespaced' | 'Cluster' = 'Namespaced'): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${group}` },
    spec: { group, scope, names, versions },
  };
}

/** A served and stored version `name` with this schema (any object by default). */
export function crdVersion(name: string, openAPIV3Schema: Obj = { type: 'object' }, more: Obj = {}): Obj {
  return { name, served: true, storage: true, schema: { openAPIV3Schema }, ...more };
}

/** A CRD of one served and stored version `v1` whose schema is any object. */
export function schemalessCrd(group: string, plural: string, kind: string, scope: 'Namespaced' | 'Cluster' = 'Namespaced'): Obj {
  return crdManifest(group, { plural, kind }, [crdVersion('v1')], scope);
}
