/** A CRD with a deprecated served version (v1beta1 of dep.example.com Old), for the deprecation signal tests. */
import type { TestServer } from '../server/harness.ts';

const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };

export const DEPRECATED_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'olds.dep.example.com' },
  spec: {
    group: 'dep.example.com',
    scope: 'Namespaced',
    names: { plural: 'olds', kind: 'Old' },
    versions: [
      { name: 'v1', served: true, storage: true, schema },
      { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
    ],
  },
};

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
