// Objects whose CEL fails to compile, sent to kube-apiserver v1.32.4 by record.ts (answers in
// recorded.json) and to the gateway by field-errors.test.ts: a CRD x-kubernetes-validations rule or
// messageExpression, and a ValidatingAdmissionPolicy expression.

export interface Case {
  readonly name: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';

function crd(rule: string, messageExpression?: string): Record<string, unknown> {
  // kube requires a message for a rule spanning lines.
  const validation: Record<string, unknown> = rule.includes('\n') ? { rule, message: 'm' } : { rule };
  if (messageExpression !== undefined) validation.messageExpression = messageExpression;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gizmos.celmsg.example.com' },
    spec: {
      group: 'celmsg.example.com',
      scope: 'Namespaced',
      names: { plural: 'gizmos', kind: 'Gizmo' },
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': [validation],
                properties: {
                  replicas: { type: 'integer' },
                  name: { type: 'string', maxLength: 63 },
                  ports: { type: 'array', maxItems: 10, items: { type: 'integer' } },
                  labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 63 } },
                },
              },
            },
          },
        },
      }],
    },
  };
}

function policy(expression: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'celmsg-policy' },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [{ expression, ...extra }],
    },
  };
}

const RULES: ReadonlyArray<readonly [string, string]> = [
  ['no overload for an operator', "self.replicas + 'a' == 1"],
  ['int compared with double', 'self.replicas == 1.0'],
  ['no overload for a function', 'size(self.replicas) > 1'],
  ['no overload for a member function', "self.name.startsWith(1)"],
  ['undeclared reference', 'nope > 1'],
  ['undeclared function', "self.name.reverse() == 'a'"],
  ['undefined field', 'self.nope > 1'],
  ['field selection on a scalar', 'self.replicas.x > 1'],
  ['index of a string', "self.name[0] == 'a'"],
  ['heterogeneous list', "[1, 'a'].size() > 0"],
  ['non-ASCII before the caret', "'héllo wörld' + 1 == self.name"],
  ['tab before the caret', "self.replicas\t+ 'a' == 1"],
  ['second line', "self.replicas > 1 &&\n  self.name + 1 == 'a'"],
  ['invalid timestamp literal', "timestamp('2023-02-30T00:00:00Z') < timestamp('2024-01-01T00:00:00Z')"],
  ['invalid duration literal', "duration('1d') > duration('1s')"],
  ['invalid regex literal', "self.name.matches('[')"],
  ['folded conversion', "int('x') == self.replicas"],
  ['syntax: missing operand', 'self.replicas >'],
  ['syntax: missing closing parenthesis', '(self.replicas > 1'],
  ['syntax: left over input', 'self.replicas > 1)'],
  ['syntax: keyword as field', 'self.true == 1'],
  ['syntax: stray equals', 'self.replicas == = 1'],
  ['reserved identifier', 'while'],
  ['has() of a non-selection', 'has(self)'],
  ["a namespace's function as a member", "self.name.quote() == 'b'"],
  ['no overload for a namespace function', "strings.quote(1) == 'b'"],
  ['every undeclared name', "[1, 2].transformMap(i, v, v * 10) == {}"],
  ['negative literal out of range', 'self.replicas > -9223372036854775809'],
  ['logical operator on an int', 'self.replicas && true'],
];

export const CASES: readonly Case[] = [
  ...RULES.map(([name, rule]) => ({ name: `CRD rule: ${name}`, path: CRDS, body: crd(rule) })),
  { name: 'CRD messageExpression: no overload', path: CRDS, body: crd('self.replicas > 1', "'replicas: ' + self.replicas") },
  ...RULES.map(([name, expression]) => ({ name: `policy validation: ${name}`, path: POLICIES, body: policy(expression.replaceAll('self.', 'object.spec.').replaceAll('has(self)', 'has(object)')) })),
  { name: 'policy messageExpression: no overload', path: POLICIES, body: policy('true', { messageExpression: "'n: ' + 1" }) },
];
