/** ConfigMap-like and Deployment-like schemas for the apply tests. */
import type { Schema } from '../../src/schema/types.ts';

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const meta: Schema = { type: 'object' };

export const configMapSchema: Schema = {
  type: 'object',
  properties: {
    apiVersion: str,
    kind: str,
    metadata: meta,
    data: { type: 'object', additionalProperties: str },
    binaryData: { type: 'object', additionalProperties: str },
    immutable: { type: 'boolean' },
  },
};

const containerSchema: Schema = {
  type: 'object',
  properties: {
    name: str,
    image: str,
    args: { type: 'array', items: str },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      items: {
        type: 'object',
        properties: { containerPort: int, protocol: { type: 'string', default: 'TCP' }, name: str },
      },
    },
    env: {
      type: 'array',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
      items: { type: 'object', properties: { name: str, value: str } },
    },
    resources: {
      type: 'object',
      properties: { limits: { type: 'object', additionalProperties: str } },
    },
  },
};

export function deploymentSchema(opts: { selectorAtomic?: boolean } = {}): Schema {
  return {
    type: 'object',
    properties: {
      apiVersion: str,
      kind: str,
      metadata: meta,
      spec: {
        type: 'object',
        properties: {
          replicas: int,
          paused: { type: 'boolean' },
          selector: {
            type: 'object',
            ...(opts.selectorAtomic ? { 'x-kubernetes-map-type': 'atomic' as const } : {}),
            properties: { matchLabels: { type: 'object', additionalProperties: str } },
          },
          template: {
            type: 'object',
            properties: {
              metadata: {
                type: 'object',
                properties: { labels: { type: 'object', additionalProperties: str } },
              },
              spec: {
                type: 'object',
                properties: {
                  containers: {
                    type: 'array',
                    'x-kubernetes-patch-merge-key': 'name',
                    'x-kubernetes-patch-strategy': 'merge',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: containerSchema,
                  },
                  tolerations: { type: 'array', items: { type: 'object', properties: { key: str } } },
                  nodeSelector: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: str },
                },
              },
            },
          },
        },
      },
      status: {
        type: 'object',
        properties: { replicas: int, readyReplicas: int, conditions: { type: 'array', items: { type: 'object' } } },
      },
    },
  };
}
