/**
 * Command-line configuration of the server. Flag names follow kube-apiserver where it has the
 * same setting; the syntax follows Go's pflag: `--flag=value` or `--flag value`, booleans as
 * `--flag` or `--flag=true|false`, durations in Go's notation (`5s`, `1m30s`, `300ms`).
 */
import { isIP } from 'node:net';
import { parseGoDuration } from '../schema/go-duration.ts';
import type { AuditFlags } from '../audit/flags.ts';
import { AUTHN_FLAGS, authnFlagsOf, type AuthnFlags } from '../authn/flags.ts';
// Scale out (Redis watch fanout, leader election): src/leader/flags.ts.
import { SCALEOUT_FLAGS, scaleoutFlagsOf, type ScaleoutFlags } from '../leader/flags.ts';
// Aggregation layer (src/aggregator): front-proxy client certificate, service addresses, traffic defaults.
import { AGGREGATOR_FLAGS, aggregatorFlagsOf, type AggregatorFlags } from '../aggregator/flags.ts';
import { DEFAULT_AUTHORIZATION_MODES, validateAuthorizationModes, type AuthorizationMode } from '../authz/modes.ts';
import { FeatureGateError, featureGateHelpLines, parseFeatureGates, type FeatureGates } from '../features/index.ts';
import { parseRuntimeConfig, RuntimeConfigError, validateRuntimeConfigKeys } from '../features/runtime-config.ts';

export type StorageBackend = 'sqlite' | 'etcd' | 'memory';

export interface ServerConfig {
  /** HTTPS port; 0 asks the OS for a free one. */
  readonly securePort: number;
  readonly bindAddress: string;
  /** Serving certificate and key; both or neither. Neither: generated into the data dir. */
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  /** PEM bundle of authorities whose client certificates are accepted. */
  readonly clientCaFile?: string;
  /** Static bearer tokens, CSV `token,user,uid,"group1,group2"`. */
  readonly tokenAuthFile?: string;
  readonly etcdServers: readonly string[];
  /** How long /readyz fails before the listener closes on shutdown, in milliseconds. */
  readonly shutdownDelayMs: number;
  readonly anonymousAuth: boolean;
  readonly dataDir: string;
  readonly storageBackend: StorageBackend;
  /** How long past revisions stay readable (watch from an old resourceVersion, continue tokens), in milliseconds. */
  readonly historyMs: number;
  /** How long core events are kept after their last write (kube-apiserver's --event-ttl), in milliseconds; 0 keeps them. */
  readonly eventTtlMs?: number;
  /** kube-apiserver's --max-requests-inflight and --max-mutating-requests-inflight; 0 is no limit. */
  readonly maxRequestsInflight?: number;
  /** Services: --service-cluster-ip-range and --service-node-port-range (validated at start). */
  readonly serviceClusterIpRange?: string;
  readonly serviceNodePortRange?: string;
  readonly maxMutatingRequestsInflight?: number;
  /** API Priority and Fairness (src/flowcontrol): --enable-priority-and-fairness (default true); false keeps the plain in-flight limits. */
  readonly enablePriorityAndFairness?: boolean;
  /**
   * Service-account tokens: accepted issuers (the first signs; default DEFAULT_SERVICE_ACCOUNT_ISSUER),
   * verification key files, the signing key file (absent: generated into the data dir).
   */
  readonly serviceAccountIssuers?: readonly string[];
  readonly serviceAccountKeyFiles?: readonly string[];
  readonly serviceAccountSigningKeyFile?: string;
  /** The authenticating proxy: its CA file, allowed CNs, and the headers it names the user in. */
  readonly requestheaderClientCaFile?: string;
  readonly requestheaderAllowedNames?: readonly string[];
  readonly requestheaderUsernameHeaders?: readonly string[];
  readonly requestheaderGroupHeaders?: readonly string[];
  readonly requestheaderExtraHeadersPrefix?: readonly string[];
  /**
   * kube-controller-manager's identity controllers: service accounts and the root-CA publisher
   * (a `default` ServiceAccount and `kube-root-ca.crt` in every namespace) and the
   * service-account-token controller (legacy token Secrets); default true.
   */
  readonly identityControllers?: boolean;
  /** Further authentication methods (src/authn/flags.ts reads and checks them). */
  readonly authn?: AuthnFlags;
  /** Scale out: leader election of the run-once controllers, Redis watch fanout (src/leader/flags.ts). */
  readonly scaleout?: ScaleoutFlags;
  /** --api-audiences; absent or empty: the issuers. */
  readonly apiAudiences?: readonly string[];
  /** --service-account-lookup (default true): tokens of deleted ServiceAccounts (or bound Secrets) are rejected. */
  readonly serviceAccountLookup?: boolean;
  /**
   * How long a bearer token's successful authentication is reused (kube's TokenSuccessCacheTTL,
   * 10 s, no flag in kube either); tests shorten it. Failures are never cached, as in kube.
   */
  readonly tokenSuccessCacheTtlMs?: number;
  /** --service-account-max-token-expiration in seconds; 0 or absent is no limit. */
  readonly serviceAccountMaxTokenExpirationSeconds?: number;
  /** --authorization-mode, in priority order; absent means RBAC. */
  readonly authorizationModes?: readonly AuthorizationMode[];
  /** --enable-admission-plugins and --disable-admission-plugins (kube's plugin names), on top of kube's default-on set. */
  readonly enableAdmissionPlugins?: readonly string[];
  readonly disableAdmissionPlugins?: readonly string[];
  /** --admission-control-config-file: an AdmissionConfiguration with per-plugin configuration. */
  readonly admissionControlConfigFile?: string;
  /** --authorization-policy-file (ABAC). */
  readonly authorizationPolicyFile?: string;
  /** --authorization-webhook-config-file and its companions (Webhook mode, flag form). */
  readonly authorizationWebhookConfigFile?: string;
  readonly authorizationWebhookVersion?: 'v1' | 'v1beta1';
  readonly authorizationWebhookCacheAuthorizedTtlMs?: number;
  readonly authorizationWebhookCacheUnauthorizedTtlMs?: number;
  /** --authorization-config: an AuthorizationConfiguration file, instead of the mode flags. */
  readonly authorizationConfigFile?: string;
  // Operations (ops): feature gates, runtime-config, logs, livez grace period.
  /** --feature-gates; absent: kube's defaults. */
  readonly featureGates?: FeatureGates;
  /** Audit (src/audit): the --audit-* flags. */
  readonly audit?: AuditFlags;
  /** Aggregation layer flags (src/aggregator/flags.ts); absent when none is given. */
  readonly aggregator?: AggregatorFlags;
  /** --runtime-config as given (`group/version[/resource]` -> value); resolved against the served types at start. */
  readonly runtimeConfig?: ReadonlyMap<string, string>;
  /** --log-dir (ours): the directory served at /logs; absent, /logs is not served. */
  readonly logDir?: string;
  /** --livez-grace-period in milliseconds (default 0). */
  readonly livezGracePeriodMs?: number;
  /** --etcd-count-metric-poll-period in milliseconds (default 60 s; 0 turns the object counts off). */
  readonly etcdCountMetricPollPeriodMs?: number;
}

/** The issuer kube-gateway signs with when no --service-account-issuer is given (kube's conventional one). */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** A command line that cannot be parsed; the message names the offending flag or value. */
export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

type FlagKind = 'string' | 'int' | 'bool' | 'duration' | 'stringSlice' | 'stringArray' | 'featureGates' | 'mapStringString';

interface FlagSpec {
  readonly name: string;
  readonly kind: FlagKind;
  /** Shown in --help; absent when the flag has no default. */
  readonly defaultText?: string;
  readonly help: string;
}

// Audit (src/audit): kube-apiserver's audit flags and defaults.
const AUDIT_FLAGS: readonly FlagSpec[] = [
  { name: 'audit-log-batch-buffer-size', kind: 'int', defaultText: '10000', help: 'Events the log backend queues before dropping (counted in apiserver_audit_error_total).' },
  { name: 'audit-log-maxage', kind: 'int', help: 'Maximum number of days to retain old audit log files, by the timestamp in their name.' },
  { name: 'audit-log-maxbackup', kind: 'int', help: 'Maximum number of old audit log files to retain. 0 means no limit.' },
  { name: 'audit-log-maxsize', kind: 'int', help: 'Maximum size in megabytes of the audit log file before it gets rotated.' },
  { name: 'audit-log-path', kind: 'string', help: 'If set, all requests coming to the apiserver will be logged to this file. \'-\' means standard out.' },
  { name: 'audit-policy-file', kind: 'string', help: 'Path to the file that defines the audit policy configuration (audit.k8s.io/v1 Policy).' },
  { name: 'audit-webhook-batch-buffer-size', kind: 'int', defaultText: '10000', help: 'The size of the buffer to store events before batching and writing.' },
  { name: 'audit-webhook-batch-max-size', kind: 'int', defaultText: '400', help: 'The maximum size of a batch.' },
  { name: 'audit-webhook-batch-max-wait', kind: 'duration', defaultText: '30s', help: 'The amount of time to wait before force writing the batch that hadn\'t reached the max size.' },
  { name: 'audit-webhook-batch-throttle-burst', kind: 'int', defaultText: '15', help: 'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before.' },
  { name: 'audit-webhook-batch-throttle-qps', kind: 'int', defaultText: '10', help: 'Maximum average number of batches per second.' },
  { name: 'audit-webhook-config-file', kind: 'string', help: 'Path to a kubeconfig formatted file that defines the audit webhook configuration.' },
  { name: 'audit-webhook-initial-backoff', kind: 'duration', defaultText: '10s', help: 'The amount of time to wait before retrying the first failed request.' },
];

const FLAGS: readonly FlagSpec[] = [
  { name: 'admission-control-config-file', kind: 'string', help: 'File with admission control configuration (an AdmissionConfiguration naming per-plugin configuration).' },
  { name: 'anonymous-auth', kind: 'bool', defaultText: 'true', help: 'Treat requests without credentials as system:anonymous (group system:unauthenticated).' },
  ...AUTHN_FLAGS,
  ...SCALEOUT_FLAGS,
  ...AGGREGATOR_FLAGS,
  { name: 'api-audiences', kind: 'stringSlice', help: 'Identifiers of the API: service-account tokens must name one of them; defaults to the service-account issuers.' },
  ...AUDIT_FLAGS,
  { name: 'authorization-config', kind: 'string', help: 'AuthorizationConfiguration file (apiserver.config.k8s.io v1, v1beta1, v1alpha1); reloaded when it changes. Not with --authorization-mode or --authorization-webhook-*.' },
  { name: 'authorization-mode', kind: 'stringSlice', defaultText: '[RBAC]', help: 'Ordered comma-separated list of authorization modes: AlwaysAllow, AlwaysDeny, ABAC, RBAC, Webhook.' },
  { name: 'authorization-policy-file', kind: 'string', help: 'ABAC policy file: one JSON Policy per line (with --authorization-mode=ABAC).' },
  { name: 'authorization-webhook-cache-authorized-ttl', kind: 'duration', defaultText: '5m0s', help: 'How long allowed answers of the webhook authorizer are cached.' },
  { name: 'authorization-webhook-cache-unauthorized-ttl', kind: 'duration', defaultText: '30s', help: 'How long other answers of the webhook authorizer are cached.' },
  { name: 'authorization-webhook-config-file', kind: 'string', help: 'Kubeconfig of the webhook authorizer (with --authorization-mode=Webhook).' },
  { name: 'authorization-webhook-version', kind: 'string', defaultText: 'v1beta1', help: 'SubjectAccessReview version sent to the webhook: v1 or v1beta1.' },
  { name: 'bind-address', kind: 'string', defaultText: '127.0.0.1', help: 'IP address to listen on for --secure-port; 0.0.0.0 or :: for all interfaces.' },
  { name: 'client-ca-file', kind: 'string', help: 'PEM bundle of authorities; a client certificate signed by one authenticates as its CN, with its O entries as groups.' },
  { name: 'data-dir', kind: 'string', defaultText: './data', help: 'Directory for the SQLite store, generated certificates and the admin kubeconfig.' },
  { name: 'disable-admission-plugins', kind: 'stringSlice', help: 'Admission plugins to disable even if enabled by default (comma-separated, kube\'s names).' },
  { name: 'enable-admission-plugins', kind: 'stringSlice', help: 'Admission plugins to enable in addition to the default-on ones (NamespaceLifecycle, MutatingAdmissionWebhook, ValidatingAdmissionPolicy, ValidatingAdmissionWebhook); comma-separated, kube\'s names. They run in kube\'s fixed order.' },
  { name: 'etcd-count-metric-poll-period', kind: 'duration', defaultText: '1m0s', help: 'Frequency of polling etcd for number of resources per type. 0 disables the metric collection.' },
  { name: 'etcd-servers', kind: 'stringSlice', help: 'Comma-separated etcd URLs; implies --storage-backend=etcd unless that is set.' },
  // Operations (ops).
  {
    name: 'feature-gates',
    kind: 'featureGates',
    help: ['Comma-separated list of component:key=value pairs that describe feature gates for alpha/experimental features of different components.', 'If the component is not specified, defaults to "kube". This flag can be repeatedly invoked. Options are:', ...featureGateHelpLines()].join('\n'),
  },
  { name: 'livez-grace-period', kind: 'duration', defaultText: '0s', help: 'This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. From apiserver\'s start time to when this amount of time has elapsed, /livez will assume that unfinished post-start hooks will complete successfully and therefore return true.' },
  { name: 'log-dir', kind: 'string', help: 'Directory served (listing and files) at the non-resource path /logs, authorized as any non-resource path; absent, /logs is not served.' },
  {
    name: 'runtime-config',
    kind: 'mapStringString',
    help: 'A set of key=value pairs that enable or disable built-in APIs. Supported options are:\nv1=true|false for the core API group\n<group>/<version>=true|false for a specific API group and version (e.g. apps/v1=true)\napi/all=true|false controls all API versions\napi/ga=true|false controls all API versions of the form v[0-9]+\napi/beta=true|false controls all API versions of the form v[0-9]+beta[0-9]+\napi/alpha=true|false controls all API versions of the form v[0-9]+alpha[0-9]+\napi/legacy is deprecated, and will be removed in a future version',
  },
  { name: 'help', kind: 'bool', help: 'Print this list of flags and exit.' },
  { name: 'history-duration', kind: 'duration', defaultText: '5m', help: 'How long past resource versions stay readable for watches and continue tokens.' },
  { name: 'event-ttl', kind: 'duration', defaultText: '1h0m0s', help: 'Amount of time to retain events after their last write.' },
  // API Priority and Fairness (src/flowcontrol).
  { name: 'enable-priority-and-fairness', kind: 'bool', defaultText: 'true', help: 'If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness' },
  { name: 'max-mutating-requests-inflight', kind: 'int', defaultText: '200', help: 'Maximum number of mutating requests in flight at a given time; beyond it requests are answered 429. 0 means no limit.' },
  { name: 'max-requests-inflight', kind: 'int', defaultText: '400', help: 'Maximum number of non-mutating requests in flight at a given time; beyond it requests are answered 429. 0 means no limit.' },
  { name: 'requestheader-allowed-names', kind: 'stringSlice', help: 'Client certificate common names allowed to name users in request headers; empty allows any certificate of --requestheader-client-ca-file.' },
  { name: 'requestheader-client-ca-file', kind: 'string', help: 'PEM bundle of authorities that sign authenticating proxies\' client certificates; request headers are trusted only from them.' },
  { name: 'requestheader-extra-headers-prefix', kind: 'stringSlice', help: 'Request header prefixes naming user extras (X-Remote-Extra- is common).' },
  { name: 'requestheader-group-headers', kind: 'stringSlice', help: 'Request headers naming groups (X-Remote-Group is common).' },
  { name: 'requestheader-username-headers', kind: 'stringSlice', help: 'Request headers naming the user; the first non-empty wins (X-Remote-User is common).' },
  { name: 'secure-port', kind: 'int', defaultText: '6443', help: 'Port to serve HTTPS on; 0 picks a free port.' },
  { name: 'service-account-issuer', kind: 'stringArray', defaultText: DEFAULT_SERVICE_ACCOUNT_ISSUER, help: 'Issuer of service-account tokens (repeatable; the first signs, all are accepted).' },
  { name: 'service-account-key-file', kind: 'stringArray', help: 'PEM file of RSA or ECDSA keys (public or private) that verify service-account tokens (repeatable).' },
  { name: 'service-account-lookup', kind: 'bool', defaultText: 'true', help: 'Reject service-account tokens whose ServiceAccount (or bound Secret) no longer exists.' },
  { name: 'service-account-max-token-expiration', kind: 'duration', help: 'Longest validity a TokenRequest may ask for.' },
  { name: 'service-account-signing-key-file', kind: 'string', help: 'PEM private key (RSA or ECDSA) that signs service-account tokens; generated into the data dir when absent.' },
  // Services (src/services): the pools Service cluster IPs and node ports are allocated from.
  { name: 'service-cluster-ip-range', kind: 'string', defaultText: '10.0.0.0/24', help: 'CIDR from which Service cluster IPs are allocated (single stack).' },
  { name: 'service-node-port-range', kind: 'string', defaultText: '30000-32767', help: 'Port range from which NodePort and LoadBalancer Services get node ports.' },
  { name: 'shutdown-delay-duration', kind: 'duration', defaultText: '0s', help: 'On shutdown, time during which /readyz fails while requests are still served.' },
  { name: 'storage-backend', kind: 'string', defaultText: 'sqlite', help: 'Where objects are stored: sqlite (in the data dir), etcd or memory.' },
  { name: 'tls-cert-file', kind: 'string', help: 'PEM serving certificate (with intermediates); generated into the data dir when absent.' },
  { name: 'tls-private-key-file', kind: 'string', help: 'PEM private key matching --tls-cert-file.' },
  { name: 'token-auth-file', kind: 'string', help: 'CSV file of static bearer tokens: token,user,uid,"group1,group2".' },
];

const FLAGS_BY_NAME = new Map(FLAGS.map((f) => [f.name, f]));

type RawValue = string | number | boolean | readonly string[];

/**
 * Parses kube-gateway's command line (without the node and script arguments). Returns the
 * configuration, or `{ help }` when --help or -h was given. Throws FlagError on any bad input.
 */
export function parseFlags(argv: readonly string[]): ServerConfig | { readonly help: string } {
  const raw = new Map<string, RawValue>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      raw.set('help', true);
      continue;
    }
    if (!arg.startsWith('--') || arg === '--') {
      throw new FlagError(`kube-gateway does not take any arguments, got ${JSON.stringify(arg)}`);
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const spec = FLAGS_BY_NAME.get(name);
    if (spec === undefined) throw new FlagError(`unknown flag: --${name}`);

    let text: string;
    if (eq !== -1) {
      text = arg.slice(eq + 1);
    } else if (spec.kind === 'bool') {
      // A bare boolean never consumes the next argument, as in pflag.
      text = 'true';
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new FlagError(`flag needs an argument: --${name}`);
      text = next;
      i++;
    }
    const value = convert(spec, text);
    const previous = raw.get(name);
    // Slice flags accumulate across repetitions; every other flag keeps its last value.
    raw.set(name, (spec.kind === 'stringSlice' || spec.kind === 'stringArray' || spec.kind === 'featureGates' || spec.kind === 'mapStringString') && Array.isArray(previous) ? [...previous, ...(value as string[])] : value);
  }
  if (raw.get('help') === true) return { help: usage() };
  return buildConfig(raw);
}

/** The --help text: a usage line, then every flag on one line with its type and default. */
export function usage(): string {
  const rows = FLAGS.map((f) => {
    const left = `      --${f.name}${typeName(f.kind)}`;
    const def = f.defaultText !== undefined && f.kind !== 'bool' ? ` (default ${f.defaultText})` : f.defaultText === 'true' ? ' (default true)' : '';
    return { left, right: f.help + def };
  });
  const width = Math.max(...rows.map((r) => r.left.length)) + 3;
  // A help text of several lines continues under its first line, as pflag prints it.
  const row = (r: { left: string; right: string }) => r.left.padEnd(width) + r.right.split('\n').join(`\n${' '.repeat(width)}`);
  return ['Usage:', '  kube-gateway [flags]', '', 'Flags:', ...rows.map(row), ''].join('\n');
}

function typeName(kind: FlagKind): string {
  switch (kind) {
    case 'bool':
      return '';
    case 'int':
      return ' int';
    case 'duration':
      return ' duration';
    case 'stringSlice':
      return ' strings';
    case 'stringArray':
      return ' stringArray';
    case 'featureGates':
      return ' colonSeparatedMultimapStringString';
    case 'mapStringString':
      return ' mapStringString';
    case 'string':
      return ' string';
  }
}

function convert(spec: FlagSpec, text: string): RawValue {
  const invalid = (why: string) => new FlagError(`invalid argument ${JSON.stringify(text)} for "--${spec.name}" flag: ${why}`);
  switch (spec.kind) {
    case 'string':
      return text;
    case 'stringSlice':
      return text === '' ? [] : text.split(',');
    case 'stringArray':
    case 'featureGates':
    case 'mapStringString':
      // pflag's StringArray: the value as given, commas included.
      return [text];
    case 'bool': {
      const b = parseGoBool(text);
      if (b === undefined) throw invalid(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`);
      return b;
    }
    case 'int': {
      if (!/^[+-]?\d+$/.test(text)) throw invalid(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
      const n = Number(text);
      if (!Number.isSafeInteger(n)) throw invalid(`strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
      return n;
    }
    case 'duration':
      try {
        return parseGoDuration(text);
      } catch (err) {
        throw invalid((err as Error).message);
      }
  }
}

/** Go's strconv.ParseBool: 1, t, T, TRUE, true, True and their false counterparts. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

function buildConfig(raw: ReadonlyMap<string, RawValue>): ServerConfig {
  const str = (name: string): string | undefined => raw.get(name) as string | undefined;
  const nonNegativeDuration = (name: string, fallback: number): number => {
    const ms = (raw.get(name) as number | undefined) ?? fallback;
    if (ms < 0) throw new FlagError(`--${name} can not be a negative value`);
    return ms;
  };

  const securePort = (raw.get('secure-port') as number | undefined) ?? 6443;
  if (securePort < 0 || securePort > 65535) {
    throw new FlagError(`--secure-port ${securePort} must be between 0 and 65535, inclusive. 0 picks a free port.`);
  }

  const bindAddress = str('bind-address') ?? '127.0.0.1';
  if (isIP(bindAddress) === 0) throw new FlagError(`invalid argument ${JSON.stringify(bindAddress)} for "--bind-address" flag: invalid IP address`);

  const tlsCertFile = nonEmpty(str('tls-cert-file'));
  const tlsPrivateKeyFile = nonEmpty(str('tls-private-key-file'));
  if ((tlsCertFile === undefined) !== (tlsPrivateKeyFile === undefined)) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  }

  const etcdServers = ((raw.get('etcd-servers') as readonly string[] | undefined) ?? []).map((s) => s.trim()).filter((s) => s !== '');
  const backendText = str('storage-backend');
  let storageBackend: StorageBackend;
  if (backendText === undefined) {
    storageBackend = etcdServers.length > 0 ? 'etcd' : 'sqlite';
  } else if (backendText === 'sqlite' || backendText === 'etcd' || backendText === 'memory') {
    storageBackend = backendText;
  } else {
    throw new FlagError(`invalid argument ${JSON.stringify(backendText)} for "--storage-backend" flag: must be one of sqlite, etcd, memory`);
  }
  if (storageBackend === 'etcd' && etcdServers.length === 0) throw new FlagError('--etcd-servers must be specified');

  const nonNegativeInt = (name: string, dflt: number): number => {
    const v = (raw.get(name) as number | undefined) ?? dflt;
    if (v < 0) throw new FlagError(`--${name}=${v} must be 0 (no limit) or greater`);
    return v;
  };
  const historyMs = nonNegativeDuration('history-duration', 5 * 60_000);
  if (historyMs === 0) throw new FlagError('--history-duration must be greater than 0');

  const strings = (name: string): string[] => ((raw.get(name) as readonly string[] | undefined) ?? []).filter((v) => v !== '');
  const serviceAccountIssuers = strings('service-account-issuer');
  if (serviceAccountIssuers.length === 0) serviceAccountIssuers.push(DEFAULT_SERVICE_ACCOUNT_ISSUER);
  for (const iss of serviceAccountIssuers) {
    // kube: an issuer containing a colon must be a URL.
    if (iss.includes(':') && !URL.canParse(iss)) throw new FlagError(`service-account-issuer ${JSON.stringify(iss)} contained a ':' but was not a valid URL`);
  }
  const apiAudiences = strings('api-audiences');
  const maxTokenMs = nonNegativeDuration('service-account-max-token-expiration', 0);
  if (maxTokenMs !== 0 && maxTokenMs < 3600_000) throw new FlagError('service-account-max-token-expiration; must be >= 3600 (1 hour)');
  const authorizationModes = ((raw.get('authorization-mode') as readonly string[] | undefined) ?? DEFAULT_AUTHORIZATION_MODES).map((m) => m.trim());
  const authorizationConfigFile = nonEmpty(str('authorization-config'));
  const webhookFlags = ['authorization-webhook-config-file', 'authorization-webhook-version', 'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl'];
  if (authorizationConfigFile !== undefined && (raw.has('authorization-mode') || webhookFlags.some((f) => raw.has(f)))) {
    throw new FlagError('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
  }
  const authorizationPolicyFile = nonEmpty(str('authorization-policy-file'));
  const authorizationWebhookConfigFile = nonEmpty(str('authorization-webhook-config-file'));
  const modeProblems = authorizationConfigFile !== undefined ? [] : validateAuthorizationModes(authorizationModes, { policyFile: authorizationPolicyFile, webhookConfigFile: authorizationWebhookConfigFile });
  if (modeProblems.length > 0) throw new FlagError(modeProblems.join('; '));
  const webhookVersion = str('authorization-webhook-version') ?? 'v1beta1';
  if (webhookVersion !== 'v1' && webhookVersion !== 'v1beta1') throw new FlagError(`unsupported webhook authorizer version "${webhookVersion}", supported versions are "v1", "v1beta1"`);

  let featureGates: FeatureGates;
  try {
    featureGates = parseFeatureGates((raw.get('feature-gates') as readonly string[] | undefined) ?? []);
  } catch (err) {
    if (err instanceof FeatureGateError) throw new FlagError(err.message);
    throw err;
  }
  let runtimeConfig: ReadonlyMap<string, string> | undefined;
  if (raw.has('runtime-config')) {
    runtimeConfig = parseRuntimeConfig(raw.get('runtime-config') as readonly string[]);
    try {
      validateRuntimeConfigKeys(runtimeConfig);
    } catch (err) {
      if (err instanceof RuntimeConfigError) throw new FlagError(err.message);
      throw err;
    }
  }
  const authn = authnFlagsOf(raw, FlagError);
  if (authn.authn?.authenticationConfigFile !== undefined && !featureGates.enabled('StructuredAuthenticationConfiguration')) {
    throw new FlagError('set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file');
  }

  const config: ServerConfig = {
    securePort,
    bindAddress,
    ...(tlsCertFile !== undefined ? { tlsCertFile } : {}),
    ...(tlsPrivateKeyFile !== undefined ? { tlsPrivateKeyFile } : {}),
    ...optional('clientCaFile', nonEmpty(str('client-ca-file'))),
    ...optional('tokenAuthFile', nonEmpty(str('token-auth-file'))),
    etcdServers: Object.freeze(etcdServers),
    shutdownDelayMs: nonNegativeDuration('shutdown-delay-duration', 0),
    anonymousAuth: (raw.get('anonymous-auth') as boolean | undefined) ?? true,
    dataDir: nonEmpty(str('data-dir')) ?? './data',
    storageBackend,
    historyMs,
    eventTtlMs: nonNegativeDuration('event-ttl', 60 * 60_000),
    maxRequestsInflight: nonNegativeInt('max-requests-inflight', 400),
    maxMutatingRequestsInflight: nonNegativeInt('max-mutating-requests-inflight', 200),
    // API Priority and Fairness (src/flowcontrol).
    // Only when given: absent means on, as in kube-apiserver.
    ...(raw.has('enable-priority-and-fairness') ? { enablePriorityAndFairness: raw.get('enable-priority-and-fairness') as boolean } : {}),
    ...optional('requestheaderClientCaFile', nonEmpty(str('requestheader-client-ca-file'))),
    ...(raw.has('requestheader-client-ca-file')
      ? {
          requestheaderAllowedNames: Object.freeze(strings('requestheader-allowed-names')),
          requestheaderUsernameHeaders: Object.freeze(strings('requestheader-username-headers')),
          requestheaderGroupHeaders: Object.freeze(strings('requestheader-group-headers')),
          requestheaderExtraHeadersPrefix: Object.freeze(strings('requestheader-extra-headers-prefix')),
        }
      : {}),
    serviceAccountIssuers: Object.freeze(serviceAccountIssuers),
    serviceAccountKeyFiles: Object.freeze(strings('service-account-key-file')),
    ...optional('serviceAccountSigningKeyFile', nonEmpty(str('service-account-signing-key-file'))),
    apiAudiences: Object.freeze(apiAudiences.length > 0 ? apiAudiences : [...serviceAccountIssuers]),
    serviceAccountLookup: (raw.get('service-account-lookup') as boolean | undefined) ?? true,
    serviceAccountMaxTokenExpirationSeconds: Math.floor(maxTokenMs / 1000),
    authorizationModes: Object.freeze(authorizationModes as AuthorizationMode[]),
    ...(raw.has('enable-admission-plugins') ? { enableAdmissionPlugins: Object.freeze(strings('enable-admission-plugins').map((n) => n.trim())) } : {}),
    ...(raw.has('disable-admission-plugins') ? { disableAdmissionPlugins: Object.freeze(strings('disable-admission-plugins').map((n) => n.trim())) } : {}),
    ...optional('admissionControlConfigFile', nonEmpty(str('admission-control-config-file'))),
    ...optional('authorizationPolicyFile', authorizationPolicyFile),
    ...optional('authorizationWebhookConfigFile', authorizationWebhookConfigFile),
    // Only when given: the authorizer applies kube's defaults (v1beta1, 5m, 30s).
    ...(raw.has('authorization-webhook-version') ? { authorizationWebhookVersion: webhookVersion } : {}),
    ...(raw.has('authorization-webhook-cache-authorized-ttl') ? { authorizationWebhookCacheAuthorizedTtlMs: nonNegativeDuration('authorization-webhook-cache-authorized-ttl', 5 * 60_000) } : {}),
    ...(raw.has('authorization-webhook-cache-unauthorized-ttl') ? { authorizationWebhookCacheUnauthorizedTtlMs: nonNegativeDuration('authorization-webhook-cache-unauthorized-ttl', 30_000) } : {}),
    ...optional('authorizationConfigFile', authorizationConfigFile),
    ...optional('serviceClusterIpRange', nonEmpty(str('service-cluster-ip-range'))),
    ...optional('serviceNodePortRange', nonEmpty(str('service-node-port-range'))),
    ...authn,
    // Only when given, so a configuration without the flag stays as it was (kube's defaults apply).
    ...(raw.has('feature-gates') ? { featureGates } : {}),
    ...scaleoutFlagsOf(raw, storageBackend, FlagError),
    ...auditFlagsOf(raw, nonNegativeDuration),
    ...aggregatorFlagsOf(raw, FlagError),
    ...(runtimeConfig !== undefined ? { runtimeConfig } : {}),
    ...optional('logDir', nonEmpty(str('log-dir'))),
    ...(raw.has('livez-grace-period') ? { livezGracePeriodMs: nonNegativeDuration('livez-grace-period', 0) } : {}),
    ...(raw.has('etcd-count-metric-poll-period') ? { etcdCountMetricPollPeriodMs: nonNegativeDuration('etcd-count-metric-poll-period', 60_000) } : {}),
  };
  return Object.freeze(config);
}

/** The --audit-* flags (src/audit reads the files they name). */
function auditFlagsOf(raw: ReadonlyMap<string, RawValue>, duration: (name: string, fallback: number) => number): { audit?: AuditFlags } {
  if (![...raw.keys()].some((k) => k.startsWith('audit-'))) return {};
  const int = (name: string, fallback: number): number => {
    const n = (raw.get(name) as number | undefined) ?? fallback;
    if (n < 0) throw new FlagError(`--${name} can not be a negative value`);
    return n;
  };
  const policyFile = nonEmpty(raw.get('audit-policy-file') as string | undefined);
  const logPath = nonEmpty(raw.get('audit-log-path') as string | undefined);
  const webhookConfigFile = nonEmpty(raw.get('audit-webhook-config-file') as string | undefined);
  return {
    audit: {
      ...(policyFile ? { policyFile } : {}),
      ...(logPath ? { logPath } : {}),
      ...(webhookConfigFile ? { webhookConfigFile } : {}),
      logMaxAgeDays: int('audit-log-maxage', 0),
      logMaxBackups: int('audit-log-maxbackup', 0),
      logMaxSizeMB: int('audit-log-maxsize', 0),
      logBufferSize: Math.max(1, int('audit-log-batch-buffer-size', 10_000)),
      webhookBatchBufferSize: Math.max(1, int('audit-webhook-batch-buffer-size', 10_000)),
      webhookBatchMaxSize: Math.max(1, int('audit-webhook-batch-max-size', 400)),
      webhookBatchMaxWaitMs: duration('audit-webhook-batch-max-wait', 30_000),
      webhookBatchThrottleQps: int('audit-webhook-batch-throttle-qps', 10),
      webhookBatchThrottleBurst: Math.max(1, int('audit-webhook-batch-throttle-burst', 15)),
      webhookInitialBackoffMs: duration('audit-webhook-initial-backoff', 10_000),
    },
  };
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
