/**
 * The feature gates kube-gateway implements, each with the stage and default kube-apiserver
 * v1.32.4 gives it (its `--help` and its refusals were read off the reference binary). Three
 * gates SPEC.md names do not exist yet in v1.32 (kube-apiserver rejects them as unrecognized):
 * DeclarativeValidation, DeclarativeValidationTakeover and ListFromCacheSnapshot carry the stage
 * and default of v1.33, where they first appear.
 *
 * GA gates are listed only where the feature lives here (always on, as in kube): setting one
 * false fails with kube's "locked" message. A gate kube has and this server does not implement
 * is unrecognized here, rather than accepted and silently ignored.
 */
export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  readonly stage: FeatureStage;
  readonly default: boolean;
  /** GA (and some deprecated) gates: setting the other value fails at startup. */
  readonly lockToDefault?: boolean;
}

export const KUBE_FEATURES = {
  // kube's special gates: true or false sets every alpha (beta) gate not set explicitly.
  AllAlpha: { stage: 'ALPHA', default: false },
  AllBeta: { stage: 'BETA', default: false },

  /** gzip of large get and list responses (src/codec/compress.ts). */
  APIResponseCompression: { stage: 'BETA', default: true },
  /** DeleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential: deleting objects that cannot be decoded. */
  AllowUnsafeMalformedObjectDeletion: { stage: 'ALPHA', default: false },
  /** Selectors in authorization: webhooks are sent the field and label selectors of lists, watches and access reviews. */
  AuthorizeWithSelectors: { stage: 'BETA', default: true },
  /** application/cbor and application/cbor-seq requests and responses. */
  CBORServingAndStorage: { stage: 'ALPHA', default: false },
  /** Consistent reads (resourceVersion unset) served from the watch cache once it is provably fresh. */
  ConsistentListFromCache: { stage: 'BETA', default: true },
  /** Custom resource updates not refused for values they leave unchanged. */
  CRDValidationRatcheting: { stage: 'BETA', default: true },
  /** v1.33: declarative validation runs beside the hand-written one and mismatches are counted. */
  DeclarativeValidation: { stage: 'BETA', default: true },
  /** v1.33: the declarative result is the authoritative one (needs DeclarativeValidation). */
  DeclarativeValidationTakeover: { stage: 'BETA', default: false },
  /** v1.33: Exact lists and continue tokens served from watch-cache snapshots instead of the store. */
  ListFromCacheSnapshot: { stage: 'ALPHA', default: false },
  /** --authentication-config. */
  StructuredAuthenticationConfiguration: { stage: 'BETA', default: true },
  /** sendInitialEvents on watches (streaming lists). */
  WatchList: { stage: 'BETA', default: true },

  // GA in v1.32 and locked on: the features are always served here.
  AdmissionWebhookMatchConditions: { stage: 'GA', default: true, lockToDefault: true },
  AggregatedDiscoveryEndpoint: { stage: 'GA', default: true, lockToDefault: true },
  APIListChunking: { stage: 'GA', default: true, lockToDefault: true },
  CustomResourceFieldSelectors: { stage: 'GA', default: true, lockToDefault: true },
  StructuredAuthorizationConfiguration: { stage: 'GA', default: true, lockToDefault: true },
  WatchBookmark: { stage: 'GA', default: true, lockToDefault: true },
} as const satisfies Record<string, FeatureSpec>;

export type KubeFeature = keyof typeof KUBE_FEATURES;
