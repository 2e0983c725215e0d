/**
 * The aggregation layer's flags, spliced into src/server/config.ts: kube-apiserver's front-proxy
 * client certificate, the static service addresses (until Services are served), and the
 * defaults of the per-APIService traffic contract (overridden per APIService by annotations).
 */
import { DEFAULT_TRAFFIC, type TrafficContract } from './traffic.ts';
import type { ServiceRouting } from './service-resolver.ts';

type Kind = 'string' | 'int' | 'bool' | 'duration' | 'stringArray';

export const AGGREGATOR_FLAGS: readonly { readonly name: string; readonly kind: Kind; readonly defaultText?: string; readonly help: string }[] = [
  { name: 'aggregator-max-body-bytes', kind: 'int', defaultText: '3145728', help: 'Default largest request body proxied to an extension API server (annotation gateway.kube-gateway.io/max-body-bytes overrides it per APIService).' },
  { name: 'aggregator-max-inflight', kind: 'int', defaultText: '400', help: 'Default number of concurrent (non-watch) requests proxied to one extension API server; beyond it requests get 429 without reaching it. 0: no limit (annotation gateway.kube-gateway.io/max-inflight).' },
  { name: 'aggregator-proxy-timeout', kind: 'duration', defaultText: '1m0s', help: 'Default time to wait for an extension API server\'s response headers (not for watches); 0: no limit (annotation gateway.kube-gateway.io/proxy-timeout).' },
  { name: 'aggregator-service-address', kind: 'stringArray', help: 'NAMESPACE/NAME=HOST[:PORT]: where a service reference (of an APIService, an admission or a conversion webhook) is reached, before the stored Services (repeatable); without a port, the referenced port.' },
  { name: 'enable-aggregator-routing', kind: 'bool', defaultText: 'false', help: 'Turns on aggregator routing requests to endpoints IP rather than cluster IP. Applies to every service reference: APIServices, admission and conversion webhooks.' },
  { name: 'service-dns-routing', kind: 'bool', defaultText: 'false', help: 'Route service references (APIServices, admission and conversion webhooks) to NAME.NAMESPACE.svc:PORT through the cluster DNS instead of the Services this server stores: for a gateway running inside a cluster whose Services live in that cluster. Exclusive with --enable-aggregator-routing.' },
  { name: 'proxy-client-cert-file', kind: 'string', help: 'Client certificate the gateway presents to extension API servers when it proxies a request (signed by their --requestheader-client-ca-file).' },
  { name: 'proxy-client-key-file', kind: 'string', help: 'Private key of --proxy-client-cert-file.' },
];

export interface AggregatorFlags {
  readonly proxyClientCertFile?: string;
  readonly proxyClientKeyFile?: string;
  readonly serviceAddresses: readonly string[];
  /** How service references resolve: cluster IP (kube's default), a ready endpoint, or the in-cluster DNS name. */
  readonly serviceRouting: ServiceRouting;
  readonly traffic: TrafficContract;
}

export function aggregatorFlagsOf(raw: ReadonlyMap<string, unknown>, FlagErrorClass: new (message: string) => Error): { aggregator?: AggregatorFlags } {
  if (!AGGREGATOR_FLAGS.some((f) => raw.has(f.name))) return {};
  const str = (name: string): string | undefined => {
    const v = raw.get(name);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const nonNegative = (name: string, fallback: number): number => {
    const v = (raw.get(name) as number | undefined) ?? fallback;
    if (v < 0) throw new FlagErrorClass(`--${name}=${v} must be 0 or greater`);
    return v;
  };
  const cert = str('proxy-client-cert-file');
  const key = str('proxy-client-key-file');
  if ((cert === undefined) !== (key === undefined)) throw new FlagErrorClass('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  const serviceAddresses = ((raw.get('aggregator-service-address') as string[] | undefined) ?? []).filter((v) => v !== '');
  for (const a of serviceAddresses) {
    if (!/^[^/=]+\/[^/=]+=.+$/.test(a)) throw new FlagErrorClass(`invalid --aggregator-service-address ${JSON.stringify(a)}: expected NAMESPACE/NAME=HOST[:PORT]`);
  }
  const endpoints = raw.get('enable-aggregator-routing') === true;
  const dns = raw.get('service-dns-routing') === true;
  if (endpoints && dns) throw new FlagErrorClass('--enable-aggregator-routing and --service-dns-routing cannot both be true');
  return {
    aggregator: {
      serviceRouting: endpoints ? 'endpoint' : dns ? 'dns' : 'cluster-ip',
      ...(cert !== undefined ? { proxyClientCertFile: cert, proxyClientKeyFile: key } : {}),
      serviceAddresses: Object.freeze(serviceAddresses),
      traffic: {
        timeoutMs: nonNegative('aggregator-proxy-timeout', DEFAULT_TRAFFIC.timeoutMs),
        maxInflight: nonNegative('aggregator-max-inflight', DEFAULT_TRAFFIC.maxInflight),
        maxBodyBytes: nonNegative('aggregator-max-body-bytes', DEFAULT_TRAFFIC.maxBodyBytes),
      },
    },
  };
}
