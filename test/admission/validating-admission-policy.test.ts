/**
 * ValidatingAdmissionPolicy through HTTP: policies, bindings and params as objects, every
 * validation action, cost failures, and the texts kube-apiserver v1.32.4 writes (each expected
 * body below was read from the reference server for the same policy and request).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdmissionAttributes, AdmissionPlugin } from '../../src/admission/types.ts';
import { startTestServer, type Response, type TestServer } from '../server/harness.ts';

const VAP = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPB = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

/** Sees the validating phase after the policy plugin (audit annotations, warnings). */
function observer(): AdmissionPlugin & { last: Map<string, Record<string, string>> } {
  const last = new Map<string, Record<string, string>>();
  return {
    name: 'Observer',
    last,
    handles: () => true,
    validate(a: AdmissionAttributes) {
      last.set(`${a.namespace}/${a.object?.metadata?.name ?? a.name}`, { ...a.auditAnnotations });
    },
  };
}

const rules = (resources: string[], operations = ['CREATE', 'UPDATE']) => ({ resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations, resources }] });

let t: TestServer;
const seen = observer();

/** Polls for up to 20 s: the plugin reads watch caches, which lag writes by more under a loaded machine. */
async function until<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function create(path: string, body: unknown): Promise<Response> {
  const r = await t.request('POST', path, { body });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return r;
}

async function namespace(name: string, labels: Record<string, string>): Promise<void> {
  await create('/api/v1/namespaces', { metadata: { name, labels } });
}

const configMap = (name: string, data?: Record<string, string>, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, ...(data ? { data } : {}) });

/** Posts until the policy plugin has seen the policy (the watch cache is asynchronous): the status is no longer `expect`. */
async function postWhenEnforced(path: string, body: unknown, notStatus: number): Promise<Response> {
  return until(async () => {
    const r = await t.request('POST', path, { body });
    if (r.status === notStatus) {
      if (r.status === 201) await t.request('DELETE', `${path}/${(body as { metadata: { name: string } }).metadata.name}`);
      return undefined;
    }
    return r;
  }, `${path} to stop answering ${notStatus}`);
}

beforeAll(async () => {
  t = await startTestServer({ extraAdmissionPlugins: [seen] });
  await create(VAP, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'p1' },
    spec: {
      matchConstraints: rules(['configmaps']),
      validations: [
        { expression: "!has(object.data) || !('bad' in object.data)" },
        { expression: "object.metadata.name != 'forbidden'", message: 'name is forbidden', reason: 'Forbidden' },
        { expression: "!has(object.data) || !('big' in object.data)", messageExpression: "'big is ' + object.data.big", reason: 'RequestEntityTooLarge' },
        { expression: "!has(object.data) || !('err' in object.data) || object.data.nope == 'x'", message: 'err message' },
      ],
      auditAnnotations: [{ key: 'k1', valueExpression: "'v-' + object.metadata.name" }],
    },
  });
  for (const [name, actions] of [['deny', ['Deny']], ['warn', ['Warn']], ['audit', ['Audit']]] as const) {
    await create(VAPB, { metadata: { name: `b-${name}` }, spec: { policyName: 'p1', validationActions: actions, matchResources: { namespaceSelector: { matchLabels: { vap: name } } } } });
    await namespace(`vap-${name}`, { vap: name });
  }
});

afterAll(async () => {
  await t?.close();
});

describe('policy and binding objects', () => {
  it('are stored with v1 defaults and an empty status', async () => {
    const p = await t.request('GET', `${VAP}/p1`);
    expect(p.json.spec.failurePolicy).toBe('Fail');
    expect(p.json.spec.matchConstraints).toMatchObject({ matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
    expect(p.json.spec.matchConstraints.resourceRules[0].scope).toBe('*');
    expect(p.json.metadata.generation).toBe(1);
    const b = await t.request('GET', `${VAPB}/b-deny`);
    expect(b.json.spec.matchResources).toMatchObject({ matchPolicy: 'Equivalent', objectSelector: {} });
  });

  it('refuses invalid policies with kube messages, compiling every expression', async () => {
    const r = await t.request('POST', VAP, {
      body: {
        metadata: { name: 'bad' },
        spec: {
          failurePolicy: 'Maybe',
          matchConstraints: { ...rules(['configmaps', '']), matchPolicy: 'Foo' },
          matchConditions: [{ name: 'bad name!', expression: "'str'" }],
          variables: [{ name: '1v', expression: 'true' }],
          validations: [{ expression: 'object.metadata.name' }, { expression: 'true', messageExpression: '1', reason: 'Weird' }, { expression: 'nope == 1' }],
          auditAnnotations: [{ key: 'a', valueExpression: '1' }],
        },
      },
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Maybe": supported values: "Fail", "Ignore"', field: 'spec.failurePolicy' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Foo": supported values: "Equivalent", "Exact"', field: 'spec.matchConstraints.matchPolicy' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.matchConstraints.resourceRules[0].resources[1]' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "\'str\'": must evaluate to bool but got string', field: 'spec.matchConditions[0].expression' },
      {
        reason: 'FieldValueInvalid',
        message:
          "Invalid value: \"bad name!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        field: 'spec.matchConditions[0].name',
      },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "1v": name is not a valid CEL identifier', field: 'spec.variables[0].name' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object.metadata.name": must evaluate to bool but got dyn', field: 'spec.validations[0].expression' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "1": must evaluate to string but got int', field: 'spec.validations[1].messageExpression' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Weird": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"', field: 'spec.validations[1].reason' },
      {
        reason: 'FieldValueInvalid',
        message: "Invalid value: \"nope == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope == 1\n | ^",
        field: 'spec.validations[2].expression',
      },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "1": must evaluate to one of [string null_type] but got int', field: 'spec.auditAnnotations[0].valueExpression' },
    ]);
  });

  it('refuses invalid bindings with kube messages', async () => {
    const r = await t.request('POST', VAPB, {
      body: { metadata: { name: 'bad' }, spec: { validationActions: ['Deny', 'Warn', 'Deny'], paramRef: { name: 'x', selector: {} } } },
    });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      'ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "bad" is invalid: [spec.policyName: Required value, spec.paramRef.name: Forbidden: name and selector are mutually exclusive, spec.paramRef.selector: Forbidden: name and selector are mutually exclusive, spec.paramRef.parameterNotFoundAction: Required value, spec.validationActions[2]: Duplicate value: "Deny", spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Deny"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)]',
    );
  });

  it('prints kube columns', async () => {
    const r = await t.kubectl(['get', 'validatingadmissionpolicies,validatingadmissionpolicybindings']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\n.*\/p1\s+4\s+<unset>\s+/);
    expect(r.stdout).toMatch(/NAME\s+POLICYNAME\s+PARAMREF\s+AGE\n.*\/b-audit\s+p1\s+<unset>\s+/);
  });
});

describe('validation actions', () => {
  it('Deny: the first failed validation refuses the request as kube words it', async () => {
    const r = await postWhenEnforced('/api/v1/namespaces/vap-deny/configmaps', configMap('c1', { bad: '1' }), 201);
    expect(r.status).toBe(422);
    const text = "ValidatingAdmissionPolicy 'p1' with binding 'b-deny' denied request: failed expression: !has(object.data) || !('bad' in object.data)";
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `configmaps "c1" is forbidden: ${text}`,
      reason: 'Invalid',
      details: { name: 'c1', kind: 'configmaps', causes: [{ message: text }] },
      code: 422,
    });
  });

  it('Deny: reason and messageExpression choose the code and the text', async () => {
    const forbidden = await t.request('POST', '/api/v1/namespaces/vap-deny/configmaps', { body: configMap('forbidden') });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.reason).toBe('Forbidden');
    expect(forbidden.json.message).toBe(`configmaps "forbidden" is forbidden: ValidatingAdmissionPolicy 'p1' with binding 'b-deny' denied request: name is forbidden`);
    const big = await t.request('POST', '/api/v1/namespaces/vap-deny/configmaps', { body: configMap('c1', { big: 'yes' }) });
    expect(big.status).toBe(413);
    expect(big.json.reason).toBe('RequestEntityTooLarge');
    expect(big.json.message).toBe(`configmaps "c1" is forbidden: ValidatingAdmissionPolicy 'p1' with binding 'b-deny' denied request: big is yes`);
  });

  it('Deny: an evaluation error fails the request under failurePolicy Fail', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/vap-deny/configmaps', { body: configMap('c1', { err: '1' }) });
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(
      /^configmaps "c1" is forbidden: ValidatingAdmissionPolicy 'p1' with binding 'b-deny' denied request: expression '!has\(object.data\) \|\| !\('err' in object.data\) \|\| object.data.nope == 'x'' resulted in error: no such key: nope$/i,
    );
  });

  it('Deny: a dry run is judged as the real write would be', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/vap-deny/configmaps?dryRun=All', { body: configMap('dry', { bad: '1' }) });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(`configmaps "dry" is forbidden: ValidatingAdmissionPolicy 'p1' with binding 'b-deny' denied request: failed expression: !has(object.data) || !('bad' in object.data)`);
    expect((await t.request('POST', '/api/v1/namespaces/vap-deny/configmaps?dryRun=All', { body: configMap('dry', { good: '1' }) })).status).toBe(201);
  });

  it('Deny: a generated name is the name the denial names', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/vap-deny/configmaps', { body: { ...configMap(''), metadata: { generateName: 'gen-' }, data: { bad: '1' } } });
    expect(r.status).toBe(422);
    expect(r.json.details.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(r.json.message).toContain(`configmaps "${r.json.details.name}" is forbidden: ValidatingAdmissionPolicy 'p1'`);
  });

  it('Deny: updates are judged too, and a passing object is admitted with its audit annotation', async () => {
    const ok = await t.request('POST', '/api/v1/namespaces/vap-deny/configmaps', { body: configMap('fine', { a: '1' }) });
    expect(ok.status).toBe(201);
    expect(seen.last.get('vap-deny/fine')).toEqual({ 'p1/k1': 'v-fine' });
    const r = await t.request('PUT', '/api/v1/namespaces/vap-deny/configmaps/fine', { body: { ...ok.json, data: { bad: 'now' } } });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain("denied request: failed expression: !has(object.data) || !('bad' in object.data)");
  });

  it('Warn: every failure becomes a Warning header and the request succeeds', async () => {
    const r = await until(async () => {
      const res = await t.request('POST', '/api/v1/namespaces/vap-warn/configmaps', { body: configMap('forbidden', { bad: '1' }) });
      if (res.headers['warning'] === undefined) await t.request('DELETE', '/api/v1/namespaces/vap-warn/configmaps/forbidden');
      return res.headers['warning'] === undefined ? undefined : res;
    }, 'the warn binding');
    expect(r.status).toBe(201);
    expect(r.headers['warning']).toBe(
      [
        `299 - "Validation failed for ValidatingAdmissionPolicy 'p1' with binding 'b-warn': failed expression: !has(object.data) || !('bad' in object.data)"`,
        `299 - "Validation failed for ValidatingAdmissionPolicy 'p1' with binding 'b-warn': name is forbidden"`,
      ].join(', '),
    );
  });

  it('Audit: the first failure is recorded as the validation_failure audit annotation, without warnings', async () => {
    const r = await until(async () => {
      const res = await t.request('POST', '/api/v1/namespaces/vap-audit/configmaps', { body: configMap('forbidden', { bad: '1' }) });
      const recorded = seen.last.get('vap-audit/forbidden')?.['validation.policy.admission.k8s.io/validation_failure'];
      if (recorded === undefined) await t.request('DELETE', '/api/v1/namespaces/vap-audit/configmaps/forbidden');
      return recorded === undefined ? undefined : res;
    }, 'the audit binding');
    expect(r.status).toBe(201);
    expect(r.headers['warning']).toBeUndefined();
    const annotations = seen.last.get('vap-audit/forbidden') ?? {};
    expect(annotations['p1/k1']).toBe('v-forbidden');
    expect(JSON.parse(annotations['validation.policy.admission.k8s.io/validation_failure'] ?? 'null')).toEqual([
      { message: "failed expression: !has(object.data) || !('bad' in object.data)", policy: 'p1', binding: 'b-audit', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
  });

  it('the real kubectl prints the denial and the warnings as against kube-apiserver', async () => {
    const denied = await t.kubectl(['create', '-n', 'vap-deny', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: forbidden\n' });
    expect(denied.code).toBe(1);
    expect(denied.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "STDIN": configmaps "forbidden" is forbidden: ValidatingAdmissionPolicy 'p1' with binding 'b-deny' denied request: name is forbidden`,
    );
    const warned = await t.kubectl(['create', '-n', 'vap-warn', 'configmap', 'w2', '--from-literal=bad=1']);
    expect(warned.code).toBe(0);
    expect(warned.stderr.trim()).toBe(`Warning: Validation failed for ValidatingAdmissionPolicy 'p1' with binding 'b-warn': failed expression: !has(object.data) || !('bad' in object.data)`);
  });

  it('never judges the admission configuration itself', async () => {
    const r = await t.request('POST', VAPB, { body: { metadata: { name: 'forbidden' }, spec: { policyName: 'forbidden', validationActions: ['Deny'] } } });
    expect(r.status).toBe(201);
  });
});

describe('params, variables, match conditions and failure policy', () => {
  beforeAll(async () => {
    await create(VAP, {
      metadata: { name: 'pp' },
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: rules(['secrets'], ['CREATE']),
        variables: [
          { name: 'bad', expression: 'object.metadata.nope' },
          { name: 'nm', expression: 'object.metadata.name' },
        ],
        validations: [
          { expression: 'variables.nm != params.data.forbidden', messageExpression: "'name ' + variables.nm + ' is forbidden by ' + params.metadata.name" },
          { expression: "!has(object.metadata.labels) || !('usebad' in object.metadata.labels) || variables.bad == 'x'" },
        ],
        auditAnnotations: [{ key: 'param', valueExpression: 'string(params.metadata.name)' }],
      },
    });
    await create(VAPB, { metadata: { name: 'pp-name' }, spec: { policyName: 'pp', validationActions: ['Deny'], paramRef: { name: 'vap-params', parameterNotFoundAction: 'Deny' }, matchResources: { namespaceSelector: { matchLabels: { vap: 'pp' } } } } });
    await create(VAPB, { metadata: { name: 'pp-noref' }, spec: { policyName: 'pp', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { vap: 'noref' } } } } });
    await create(VAPB, {
      metadata: { name: 'pp-sel' },
      spec: { policyName: 'pp', validationActions: ['Deny'], paramRef: { selector: { matchLabels: { vapp: 'yes' } }, parameterNotFoundAction: 'Allow' }, matchResources: { namespaceSelector: { matchLabels: { vap: 'sel' } } } },
    });
    for (const n of ['pp', 'noref', 'sel']) await namespace(`vap-${n}`, { vap: n });
  });

  const secret = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, ...(labels ? { labels } : {}) } });

  it('parameterNotFoundAction Deny refuses while the named param is missing, then the param decides', async () => {
    const missing = await postWhenEnforced('/api/v1/namespaces/vap-pp/secrets', secret('s1'), 201);
    expect(missing.status).toBe(422);
    expect(missing.json.message).toBe(
      "secrets \"s1\" is forbidden: ValidatingAdmissionPolicy 'pp' with binding 'pp-name' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    await create('/api/v1/namespaces/vap-pp/configmaps', configMap('vap-params', { forbidden: 'bad' }));
    const denied = await until(async () => {
      const r = await t.request('POST', '/api/v1/namespaces/vap-pp/secrets', { body: secret('bad') });
      return r.json?.message?.includes('failed to configure binding') ? undefined : r;
    }, 'the param to be seen');
    expect(denied.status).toBe(422);
    expect(denied.json.message).toBe(`secrets "bad" is forbidden: ValidatingAdmissionPolicy 'pp' with binding 'pp-name' denied request: name bad is forbidden by vap-params`);
    expect((await t.request('POST', '/api/v1/namespaces/vap-pp/secrets', { body: secret('good') })).status).toBe(201);
  });

  it('a variable that fails is reported as kube composes it', async () => {
    const r = await t.request('POST', '/api/v1/namespaces/vap-pp/secrets', { body: secret('s2', { usebad: '1' }) });
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(
      /denied request: expression '!has\(object.metadata.labels\) \|\| !\('usebad' in object.metadata.labels\) \|\| variables.bad == 'x'' resulted in error: composited variable "bad" fails to evaluate: no such key: nope$/i,
    );
  });

  it('a variable is typed by its expression for later expressions, as kube-apiserver types it', async () => {
    // kube's e2e "should allow expressions to refer variables": a bool variable is a validation on its own.
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'typed-vars' },
      spec: {
        matchConstraints: rules(['configmaps'], ['CREATE']),
        variables: [
          { name: 'replicas', expression: 'object.spec.replicas' },
          { name: 'oddReplicas', expression: 'variables.replicas % 2 == 1' },
          { name: 'count', expression: 'size(object.data)' },
          { name: 'names', expression: '[object.metadata.name]' },
        ],
        validations: [{ expression: 'variables.replicas > 1' }, { expression: 'variables.oddReplicas' }],
      },
    };
    expect((await t.request('POST', `${VAP}?dryRun=All`, { body: policy })).status).toBe(201);
    const bad = { ...policy, spec: { ...policy.spec, validations: [{ expression: 'variables.count' }, { expression: 'variables.names' }, { expression: 'variables.replicas' }, { expression: "variables.count + 'x' == 'y'" }] } };
    const r = await t.request('POST', `${VAP}?dryRun=All`, { body: bad });
    expect(r.json.message).toBe(
      'ValidatingAdmissionPolicy.admissionregistration.k8s.io "typed-vars" is invalid: [spec.validations[0].expression: Invalid value: "variables.count": must evaluate to bool but got int, spec.validations[1].expression: Invalid value: "variables.names": must evaluate to bool but got list(dyn), spec.validations[2].expression: Invalid value: "variables.replicas": must evaluate to bool but got dyn, spec.validations[3].expression: Invalid value: "variables.count + \'x\' == \'y\'": compilation failed: ERROR: <input>:1:17: found no matching overload for \'_+_\' applied to \'(int, string)\'\n | variables.count + \'x\' == \'y\'\n | ................^]',
    );
  });

  it('without a paramRef the policy runs with params null', async () => {
    const r = await postWhenEnforced('/api/v1/namespaces/vap-noref/secrets', secret('s1'), 201);
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/binding 'pp-noref' denied request: expression 'variables.nm != params.data.forbidden' resulted in error: no such key: data$/i);
  });

  it('a selector evaluates the policy once per matching param; Allow admits when none matches', async () => {
    expect((await t.request('POST', '/api/v1/namespaces/vap-sel/secrets', { body: secret('s1') })).status).toBe(201);
    await create('/api/v1/namespaces/vap-sel/configmaps', configMap('p1', { forbidden: 'bad' }, { vapp: 'yes' }));
    await create('/api/v1/namespaces/vap-sel/configmaps', configMap('p2', { forbidden: 'worse' }, { vapp: 'yes' }));
    const byP2 = await postWhenEnforced('/api/v1/namespaces/vap-sel/secrets', secret('worse'), 201);
    expect(byP2.json.message).toBe(`secrets "worse" is forbidden: ValidatingAdmissionPolicy 'pp' with binding 'pp-sel' denied request: name worse is forbidden by p2`);
    const byP1 = await t.request('POST', '/api/v1/namespaces/vap-sel/secrets', { body: secret('bad') });
    expect(byP1.json.message).toBe(`secrets "bad" is forbidden: ValidatingAdmissionPolicy 'pp' with binding 'pp-sel' denied request: name bad is forbidden by p1`);
    // The audit annotation of each evaluation, distinct values joined as kube publishes them.
    expect((await t.request('POST', '/api/v1/namespaces/vap-sel/secrets', { body: secret('fine') })).status).toBe(201);
    expect(seen.last.get('vap-sel/fine')).toEqual({ 'pp/param': 'p1, p2' });
  });

  it('a paramKind nothing serves fails every matching request as a policy configuration error', async () => {
    await namespace('vap-pk', { vap: 'pk' });
    await create(VAP, { metadata: { name: 'pk' }, spec: { paramKind: { apiVersion: 'example.com/v1', kind: 'Nope' }, matchConstraints: rules(['serviceaccounts'], ['CREATE']), validations: [{ expression: 'true' }] } });
    await create(VAPB, { metadata: { name: 'pk' }, spec: { policyName: 'pk', validationActions: ['Deny'], paramRef: { name: 'x', parameterNotFoundAction: 'Allow' }, matchResources: { namespaceSelector: { matchLabels: { vap: 'pk' } } } } });
    const r = await postWhenEnforced('/api/v1/namespaces/vap-pk/serviceaccounts', { metadata: { name: 'sa1' } }, 201);
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(
      `serviceaccounts "sa1" is forbidden: ValidatingAdmissionPolicy 'pk' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nope'`,
    );
    await t.request('DELETE', `${VAP}/pk`);
  });

  it('match conditions skip the policy; under Ignore errors admit; namespaceObject, request and oldObject are bound', async () => {
    await namespace('vap-mc', { vap: 'mc' });
    await create(VAP, {
      metadata: { name: 'mc' },
      spec: {
        failurePolicy: 'Ignore',
        matchConstraints: rules(['secrets'], ['CREATE', 'DELETE']),
        matchConditions: [
          { name: 'not-skip', expression: "object == null || !has(object.metadata.labels) || !('skip' in object.metadata.labels)" },
          { name: 'err', expression: "object == null || !has(object.metadata.labels) || !('mcerr' in object.metadata.labels) || object.metadata.labels.nope == 'x'" },
        ],
        validations: [
          {
            expression: 'false',
            messageExpression:
              "'ns=' + namespaceObject.metadata.name + ' op=' + request.operation + ' user=' + request.userInfo.username + ' kind=' + request.kind.kind + ' res=' + request.resource.resource + ' old=' + string(oldObject == null) + ' obj=' + string(object == null)",
          },
          { expression: 'object.metadata.nope == 1' },
          { expression: "authorizer.group('').resource('secrets').namespace(request.namespace).check('list').allowed() && false" },
        ],
      },
    });
    await create(VAPB, { metadata: { name: 'mc' }, spec: { policyName: 'mc', validationActions: ['Warn'], matchResources: { namespaceSelector: { matchLabels: { vap: 'mc' } } } } });
    const warned = await until(async () => {
      const r = await t.request('POST', '/api/v1/namespaces/vap-mc/secrets', { body: secret(`s${Math.random().toString(36).slice(2, 7)}`) });
      return r.headers['warning'] ? r : undefined;
    }, 'the warning policy');
    expect(warned.status).toBe(201);
    expect(warned.headers['warning']).toBe(
      [
        `299 - "Validation failed for ValidatingAdmissionPolicy 'mc' with binding 'mc': ns=vap-mc op=CREATE user=admin kind=Secret res=secrets old=true obj=false"`,
        `299 - "Validation failed for ValidatingAdmissionPolicy 'mc' with binding 'mc': failed expression: authorizer.group('').resource('secrets').namespace(request.namespace).check('list').allowed() && false"`,
      ].join(', '),
    );
    const skipped = await t.request('POST', '/api/v1/namespaces/vap-mc/secrets', { body: secret('skipped', { skip: '1' }) });
    expect(skipped.status).toBe(201);
    expect(skipped.headers['warning']).toBeUndefined();
    const errored = await t.request('POST', '/api/v1/namespaces/vap-mc/secrets', { body: secret('errored', { mcerr: '1' }) });
    expect(errored.status).toBe(201);
    expect(errored.headers['warning']).toBeUndefined();
    const deleted = await t.request('DELETE', '/api/v1/namespaces/vap-mc/secrets/skipped');
    expect(deleted.status).toBe(200);
    expect(String(deleted.headers['warning'])).toContain(`ns=vap-mc op=DELETE user=admin kind=Secret res=secrets old=false obj=true`);
  });

  it('authorizer.requestResource checks the request\'s own group, resource, namespace and name', async () => {
    await namespace('vap-rr', { vap: 'rr' });
    // eve may create configmaps in vap-rr, and get only the one named allowed-cm.
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/vap-rr/roles', {
      metadata: { name: 'eve' },
      rules: [
        { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
        { apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: ['allowed-cm'] },
      ],
    });
    await create('/apis/rbac.authorization.k8s.io/v1/namespaces/vap-rr/rolebindings', {
      metadata: { name: 'eve' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'eve' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'eve' }],
    });
    await create(VAP, {
      metadata: { name: 'rr' },
      spec: {
        matchConstraints: rules(['configmaps'], ['CREATE']),
        validations: [{ expression: "authorizer.requestResource.check('get').allowed()", message: 'the requester cannot read what it creates' }],
      },
    });
    await create(VAPB, { metadata: { name: 'rr' }, spec: { policyName: 'rr', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { vap: 'rr' } } } } });
    const asEve = { headers: { 'Impersonate-User': 'eve' } };
    const refused = await until(async () => {
      const r = await t.request('POST', '/api/v1/namespaces/vap-rr/configmaps', { ...asEve, body: configMap('other-cm') });
      if (r.status === 201) {
        await t.request('DELETE', '/api/v1/namespaces/vap-rr/configmaps/other-cm');
        return undefined;
      }
      return r;
    }, 'the requestResource policy');
    expect(refused.status).toBe(422);
    expect(refused.json.message).toBe(`configmaps "other-cm" is forbidden: ValidatingAdmissionPolicy 'rr' with binding 'rr' denied request: the requester cannot read what it creates`);
    // The same user, another name: the check carries the request's name.
    const allowed = await t.request('POST', '/api/v1/namespaces/vap-rr/configmaps', { ...asEve, body: configMap('allowed-cm') });
    expect(allowed.status).toBe(201);
    // The admin may get anything.
    const admin = await t.request('POST', '/api/v1/namespaces/vap-rr/configmaps', { body: configMap('admin-cm') });
    expect(admin.status).toBe(201);
    await t.request('DELETE', `${VAP}/rr`);
  });
});

describe('cost', () => {
  const L = '[1,2,3,4,5,6,7,8,9,10]';
  const nested = (depth: number) => {
    let e = 'true';
    for (let i = 0; i < depth; i++) e = `${L}.all(x${i}, ${e})`;
    return e;
  };

  it('one expression over the per-call limit fails with cel-go\'s cancellation text', async () => {
    await namespace('vap-cost1', { vap: 'cost1' });
    const expression = `!has(object.data) || ${nested(6)}`;
    await create(VAP, { metadata: { name: 'cost1' }, spec: { matchConstraints: rules(['configmaps']), validations: [{ expression }] } });
    await create(VAPB, { metadata: { name: 'cost1' }, spec: { policyName: 'cost1', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { vap: 'cost1' } } } } });
    const r = await postWhenEnforced('/api/v1/namespaces/vap-cost1/configmaps', configMap(`c${Date.now()}`, { a: '1' }), 201);
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/denied request: expression '.*' resulted in error: operation cancelled: actual cost limit exceeded$/);
  });

  it('expressions within the per-call limit that together exceed the policy budget stop with kube\'s budget text', async () => {
    await namespace('vap-cost2', { vap: 'cost2' });
    // Each costs about 344k; kube's budget for one policy evaluation is 10M.
    const validations = Array.from({ length: 30 }, () => ({ expression: nested(5) }));
    await create(VAP, { metadata: { name: 'cost2' }, spec: { matchConstraints: rules(['configmaps']), validations } });
    await create(VAPB, { metadata: { name: 'cost2' }, spec: { policyName: 'cost2', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { vap: 'cost2' } } } } });
    const r = await postWhenEnforced('/api/v1/namespaces/vap-cost2/configmaps', configMap(`c${Date.now()}`), 201);
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/ValidatingAdmissionPolicy 'cost2' with binding 'cost2' denied request: validation failed due to running out of cost budget, no further validation rules will be run$/);
  });
});

describe('status', () => {
  it('the status controller writes typeChecking against the schemas of the matched kinds, and observedGeneration', async () => {
    await create(VAP, {
      metadata: { name: 'tc' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['', 'coordination.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps', 'leases'] }] },
        validations: [{ expression: "object.spec.holderIdentity == 'x'", messageExpression: "'bad ' + object.datta.x" }, { expression: "object.metadata.name == 'x'" }],
      },
    });
    const status = await until(async () => {
      const r = await t.request('GET', `${VAP}/tc`);
      return r.json.status?.observedGeneration === 1 ? r.json.status : undefined;
    }, 'the status');
    expect(status.typeChecking).toEqual({
      expressionWarnings: [
        { fieldRef: 'spec.validations[0].expression', warning: "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n | object.spec.holderIdentity == 'x'\n | ......^\n" },
        {
          fieldRef: 'spec.validations[0].messageExpression',
          warning:
            "/v1, Kind=ConfigMap: ERROR: <input>:1:16: undefined field 'datta'\n | 'bad ' + object.datta.x\n | ...............^\n\n" +
            "coordination.k8s.io/v1, Kind=Lease: ERROR: <input>:1:16: undefined field 'datta'\n | 'bad ' + object.datta.x\n | ...............^\n",
        },
      ],
    });
    const current = (await t.request('GET', `${VAP}/tc`)).json;
    const fixed = await t.request('PUT', `${VAP}/tc`, { body: { ...current, spec: { ...current.spec, validations: [{ expression: "object.metadata.name == 'x'" }] } } });
    expect(fixed.status).toBe(200);
    expect(fixed.json.metadata.generation).toBe(2);
    // The main resource keeps the stored status.
    expect(fixed.json.status.observedGeneration).toBe(1);
    const after = await until(async () => {
      const r = await t.request('GET', `${VAP}/tc`);
      return r.json.status?.observedGeneration === 2 ? r.json.status : undefined;
    }, 'the second status');
    // kube's controller applies (forced SSA): the warnings it no longer applies go, and with them the
    // empty typeChecking (kube-apiserver v1.32.4 shows none either).
    expect(after.typeChecking).toBeUndefined();
    const entries = (await t.request('GET', `${VAP}/tc`)).json.metadata.managedFields as Record<string, unknown>[];
    expect(entries.find((e) => e.subresource === 'status')).toMatchObject({ manager: 'validatingadmissionpolicy-status', operation: 'Apply', fieldsV1: { 'f:status': { 'f:observedGeneration': {} } } });
  });

  it('a status write cannot change the spec', async () => {
    const current = (await t.request('GET', `${VAP}/tc`)).json;
    const r = await t.request('PUT', `${VAP}/tc/status`, { body: { ...current, spec: { ...current.spec, failurePolicy: 'Ignore' }, status: { ...current.status, typeChecking: { expressionWarnings: [{ fieldRef: 'spec.x', warning: 'w' }] } } } });
    expect(r.status).toBe(200);
    expect(r.json.spec.failurePolicy).toBe('Fail');
    expect(r.json.status.typeChecking.expressionWarnings).toEqual([{ fieldRef: 'spec.x', warning: 'w' }]);
    const bad = await t.request('PUT', `${VAP}/tc/status`, { body: { ...r.json, status: { typeChecking: { expressionWarnings: [{ fieldRef: '', warning: '' }] } } } });
    expect(bad.status).toBe(422);
    expect(bad.json.message).toBe(
      'ValidatingAdmissionPolicy.admissionregistration.k8s.io "tc" is invalid: [status.typeChecking.expressionWarnings[0].warning: Required value, status.typeChecking.expressionWarnings[0].fieldRef: Required value]',
    );
  });
});

describe('matchPolicy Equivalent', () => {
  it('a policy written for events.k8s.io/v1 judges a core/v1 Event in the events.k8s.io/v1 shape', async () => {
    await namespace('vap-ev', { vap: 'ev' });
    await create(VAP, {
      metadata: { name: 'ev' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['events.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['events'] }] },
        validations: [{ expression: "!has(object.note) || object.note != 'forbidden'", messageExpression: "'note=' + object.note + ' kind=' + request.kind.group + '/' + request.kind.kind + ' requestKind=' + request.requestKind.version + '/' + request.requestKind.kind" }],
      },
    });
    await create(VAPB, { metadata: { name: 'ev' }, spec: { policyName: 'ev', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { vap: 'ev' } } } } });
    const event = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1' }, involvedObject: { kind: 'ConfigMap', namespace: 'vap-ev', name: 'x' }, reason: 'Test', message: 'forbidden', type: 'Normal' };
    const r = await postWhenEnforced('/api/v1/namespaces/vap-ev/events', event, 201);
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(`events "e1" is forbidden: ValidatingAdmissionPolicy 'ev' with binding 'ev' denied request: note=forbidden kind=events.k8s.io/Event requestKind=v1/Event`);
    const exact = await t.request('PATCH', `${VAP}/ev`, { body: { spec: { matchConstraints: { ...rules(['events']), resourceRules: [{ apiGroups: ['events.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['events'] }], matchPolicy: 'Exact' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    expect(exact.status).toBe(200);
    await until(async () => {
      const res = await t.request('POST', '/api/v1/namespaces/vap-ev/events', { body: { ...event, metadata: { name: `e${Date.now()}` } } });
      return res.status === 201 ? res : undefined;
    }, 'Exact to stop matching core events');
  });
});

describe('variables', () => {
  it('an expression may name only variables declared (a variable: only earlier ones), as kube\'s composited compiler', async () => {
    const r = await t.request('POST', VAP, {
      body: {
        metadata: { name: 'vars' },
        spec: {
          matchConstraints: rules(['configmaps']),
          variables: [
            { name: 'a', expression: 'variables.b' },
            { name: 'b', expression: '1' },
          ],
          validations: [{ expression: 'variables.nope == 1', messageExpression: 'string(variables.zz)' }, { expression: 'variables.a == variables.b' }],
          auditAnnotations: [{ key: 'x', valueExpression: 'string(variables.q)' }],
        },
      },
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`)).toEqual([
      "spec.variables[0].expression: Invalid value: \"variables.b\": compilation failed: ERROR: <input>:1:10: undefined field 'b'\n | variables.b\n | .........^",
      "spec.validations[0].expression: Invalid value: \"variables.nope == 1\": compilation failed: ERROR: <input>:1:10: undefined field 'nope'\n | variables.nope == 1\n | .........^",
      "spec.validations[0].messageExpression: Invalid value: \"string(variables.zz)\": compilation failed: ERROR: <input>:1:17: undefined field 'zz'\n | string(variables.zz)\n | ................^",
      "spec.auditAnnotations[0].valueExpression: Invalid value: \"string(variables.q)\": compilation failed: ERROR: <input>:1:17: undefined field 'q'\n | string(variables.q)\n | ................^",
    ]);
  });
});

describe('variables as a list', () => {
  it('are a map list keyed by name, as kube declares them (ownership per variable)', async () => {
    const r = await t.request('POST', `${VAP}?dryRun=All`, {
      body: { metadata: { name: 'var-list' }, spec: { matchConstraints: rules(['configmaps']), variables: [{ name: 'a', expression: '1' }], validations: [{ expression: 'variables.a == 1' }] } },
    });
    expect(r.status).toBe(201);
    expect(r.json.metadata.managedFields[0].fieldsV1['f:spec']['f:variables']).toEqual({ '.': {}, 'k:{"name":"a"}': {} });
  });
});

describe('typed variables', () => {
  it('request and namespaceObject have kube\'s declared fields (namespaceObject\'s uid is spelled UID, as kube declares it)', async () => {
    const r = await t.request('POST', `${VAP}?dryRun=All`, {
      body: {
        metadata: { name: 'typed-vars' },
        spec: {
          matchConstraints: rules(['configmaps']),
          validations: [
            { expression: "request.nope == 'x'" },
            { expression: "namespaceObject.metadata.uid == 'x'" },
            { expression: "namespaceObject.metadata.UID != '' && namespaceObject.metadata.labels['a'] == 'b' && namespaceObject.status.phase == 'Active' && request.userInfo.groups.exists(g, g == 'x') && request.dryRun" },
          ],
        },
      },
    });
    expect(r.status).toBe(422);
    expect(r.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`)).toEqual([
      "spec.validations[0].expression: Invalid value: \"request.nope == 'x'\": compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope == 'x'\n | .......^",
      "spec.validations[1].expression: Invalid value: \"namespaceObject.metadata.uid == 'x'\": compilation failed: ERROR: <input>:1:25: undefined field 'uid'\n | namespaceObject.metadata.uid == 'x'\n | ........................^",
    ]);
  });
});

describe('audit annotations', () => {
  it('a failing valueExpression refuses the request under Fail even when the binding only warns', async () => {
    await namespace('vap-aud', { vap: 'aud' });
    await create(VAP, { metadata: { name: 'aud' }, spec: { matchConstraints: rules(['configmaps'], ['CREATE']), auditAnnotations: [{ key: 'x', valueExpression: 'string(object.data.nope)' }] } });
    await create(VAPB, { metadata: { name: 'aud' }, spec: { policyName: 'aud', validationActions: ['Warn'], matchResources: { namespaceSelector: { matchLabels: { vap: 'aud' } } } } });
    const r = await postWhenEnforced('/api/v1/namespaces/vap-aud/configmaps', configMap('c1', { a: '1' }), 201);
    expect(r.status).toBe(422);
    expect(r.json.message).toMatch(/^configmaps "c1" is forbidden: ValidatingAdmissionPolicy 'aud' with binding 'aud' denied request: expression 'string\(object.data.nope\)' resulted in error: no such key: nope$/i);
  });
});
