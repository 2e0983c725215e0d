/** A CRD with a deprecated served version (v1beta1 of dep.example.com Old), for the deprecation signal tests. */
import type { TestServer } from '../server/harness.ts';
import { crdManifest, crdVersion } from '../crd/crd-setup.ts';

const schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

export const DEPRECATED_CRD = crdManifest('dep.example.com', { plural: 'olds', kind: 'Old' }, [crdVersion('v1', schema), crdVersion('v1beta1', schema, { storage: false, deprecated: true })]);

/** Creates the CRD and waits until `path` (a list of olds) answers 200; returns that answer's status. */
export async function createDeprecatedCrd(t: TestServer, path: string): Promise<number> {
  const created = await t.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: DEPRECATED_CRD });
  if (created.status !== 201) throw new Error(`CRD create answered ${created.status}`);
  let status = 0;
  for (let i = 0; i < 200 && status !== 200; i++) {
    status = (await t.request('GET', path)).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 25));
  }
  return status;
}
