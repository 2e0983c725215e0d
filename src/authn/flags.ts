/**
 * The command-line flags of the authentication methods beyond certificates, the token file,
 * service accounts and the front proxy: OIDC (`--oidc-*`), the structured configuration file,
 * the token webhook and bootstrap tokens. Kept here so that src/server/config.ts only splices
 * them in; the checks that need file contents happen at startup (src/authn/setup.ts).
 */

type Kind = 'string' | 'bool' | 'duration' | 'stringSlice';

export const AUTHN_FLAGS: readonly { readonly name: string; readonly kind: Kind; readonly defaultText?: string; readonly help: string }[] = [
  { name: 'authentication-config', kind: 'string', help: 'File with an AuthenticationConfiguration (apiserver.config.k8s.io v1alpha1, v1beta1, v1): JWT authenticators and anonymous access; reloaded when it changes. Exclusive with --oidc-*.' },
  { name: 'authentication-token-webhook-cache-ttl', kind: 'duration', defaultText: '2m0s', help: 'How long to cache the answers of the token webhook.' },
  { name: 'authentication-token-webhook-config-file', kind: 'string', help: 'Kubeconfig-format file naming the token webhook (server, CA, client certificate); bearer tokens are sent to it as TokenReview.' },
  { name: 'authentication-token-webhook-version', kind: 'string', defaultText: 'v1beta1', help: 'TokenReview version sent to the webhook: v1 or v1beta1.' },
  { name: 'enable-bootstrap-token-auth', kind: 'bool', help: 'Accept bootstrap tokens backed by Secrets of type bootstrap.kubernetes.io/token in kube-system.' },
  { name: 'oidc-ca-file', kind: 'string', help: 'CA bundle that signed the OIDC issuer\'s serving certificate; default the host\'s roots.' },
  { name: 'oidc-client-id', kind: 'string', help: 'The client ID tokens must be issued to; required with --oidc-issuer-url.' },
  { name: 'oidc-groups-claim', kind: 'string', help: 'Claim holding the user\'s groups (a string or an array of strings).' },
  { name: 'oidc-groups-prefix', kind: 'string', help: 'Prefix for group names from the groups claim.' },
  { name: 'oidc-issuer-url', kind: 'string', help: 'https URL of the OpenID issuer; enables OIDC tokens.' },
  { name: 'oidc-required-claim', kind: 'stringSlice', help: 'key=value pairs a token must carry (repeatable, comma-separated).' },
  { name: 'oidc-signing-algs', kind: 'stringSlice', defaultText: '[RS256]', help: 'Accepted signing algorithms: RS256, RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512.' },
  { name: 'oidc-username-claim', kind: 'string', defaultText: 'sub', help: 'Claim naming the user; other claims than email get the prefix <issuer>#.' },
  { name: 'oidc-username-prefix', kind: 'string', help: 'Prefix for usernames; "-" disables prefixing.' },
];

export interface AuthnFlags {
  readonly authenticationConfigFile?: string;
  readonly oidc?: {
    readonly issuerUrl: string;
    readonly clientId?: string;
    readonly usernameClaim?: string;
    readonly usernamePrefix?: string;
    readonly groupsClaim?: string;
    readonly groupsPrefix?: string;
    readonly requiredClaims: readonly string[];
    readonly caFile?: string;
    readonly signingAlgs: readonly string[];
  };
  readonly webhook?: { readonly configFile: string; readonly cacheTtlMs: number; readonly version: 'v1' | 'v1beta1' };
  readonly enableBootstrapTokenAuth: boolean;
  /** Whether --anonymous-auth was given: it may not be when the configuration file has an anonymous block. */
  readonly anonymousAuthGiven: boolean;
}

/** Reads the flags above from the parsed command line; throws `FlagErrorClass` for bad combinations. */
export function authnFlagsOf(raw: ReadonlyMap<string, unknown>, FlagErrorClass: new (message: string) => Error): { authn?: AuthnFlags } {
  // Absent when none of these flags is given, so configurations without them stay as they were.
  if (!AUTHN_FLAGS.some((f) => raw.has(f.name))) return {};
  const str = (name: string): string | undefined => {
    const v = raw.get(name);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const list = (name: string): string[] => ((raw.get(name) as string[] | undefined) ?? []).filter((v) => v !== '');
  const oidcGiven = AUTHN_FLAGS.some((f) => f.name.startsWith('oidc-') && raw.has(f.name));
  const authenticationConfigFile = str('authentication-config');
  if (authenticationConfigFile !== undefined && oidcGiven) throw new FlagErrorClass('authentication-config file and oidc-* flags are mutually exclusive');
  const issuerUrl = str('oidc-issuer-url');
  if (oidcGiven && issuerUrl === undefined) throw new FlagErrorClass('oidc-issuer-url is required when other oidc-* flags are set');
  const version = str('authentication-token-webhook-version') ?? 'v1beta1';
  if (version !== 'v1' && version !== 'v1beta1') throw new FlagErrorClass(`invalid authentication token webhook version: ${JSON.stringify(version)}. Valid versions are "v1" and "v1beta1"`);
  const ttl = (raw.get('authentication-token-webhook-cache-ttl') as number | undefined) ?? 120_000;
  if (ttl < 0) throw new FlagErrorClass('--authentication-token-webhook-cache-ttl can not be a negative value');
  const webhookFile = str('authentication-token-webhook-config-file');
  return {
    authn: {
      ...(authenticationConfigFile !== undefined ? { authenticationConfigFile } : {}),
      ...(issuerUrl !== undefined
        ? {
            oidc: {
              issuerUrl,
              clientId: str('oidc-client-id'),
              usernameClaim: str('oidc-username-claim'),
              usernamePrefix: str('oidc-username-prefix'),
              groupsClaim: str('oidc-groups-claim'),
              groupsPrefix: str('oidc-groups-prefix'),
              requiredClaims: list('oidc-required-claim'),
              caFile: str('oidc-ca-file'),
              signingAlgs: list('oidc-signing-algs'),
            },
          }
        : {}),
      ...(webhookFile !== undefined ? { webhook: { configFile: webhookFile, cacheTtlMs: ttl, version } } : {}),
      enableBootstrapTokenAuth: raw.get('enable-bootstrap-token-auth') === true,
      anonymousAuthGiven: raw.has('anonymous-auth'),
    },
  };
}
