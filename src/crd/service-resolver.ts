/**
 * Where a conversion webhook given as a service reference (`service: {namespace, name, port}`)
 * is dialled: through the gateway's one service resolver (src/aggregator/service-resolver.ts),
 * as kube-apiserver hands its resolver to the CRD conversion webhooks too. Undefined when the
 * reference does not resolve (no Service, no ready endpoints, ...).
 */
import { hostPort, type ServiceResolver as GatewayServiceResolver } from '../aggregator/service-resolver.ts';
import type { ServiceResolver } from './conversion-webhook.ts';

export function conversionServiceResolver(resolver: GatewayServiceResolver): ServiceResolver {
  return (name, namespace, port) => {
    const r = resolver.resolve(namespace, name, port);
    return r.kind === 'address' ? hostPort(r) : undefined;
  };
}
