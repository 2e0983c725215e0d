/**
 * Feature gates as kube's component-base featuregate package keeps them: a fixed table of known
 * gates (stage, default, locked), `--feature-gates` parsed with kube's messages, and one immutable
 * FeatureGates value per server that every module asks with `enabled(name)`.
 */
import { KUBE_FEATURES, type FeatureSpec, type FeatureStage, type KubeFeature } from './kube-features.ts';

export type { FeatureSpec, FeatureStage } from './kube-features.ts';


/** A `--feature-gates` value kube would refuse; the message is kube's. */
export class FeatureGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

/** The gates of one server: defaults, then what `--feature-gates` set. Immutable. */
export class FeatureGates {
  private readonly values: ReadonlyMap<string, boolean>;

  constructor(
    private readonly known: Readonly<Record<string, FeatureSpec>>,
    explicit: ReadonlyMap<string, boolean>,
    /** kube's log lines for GA and deprecated gates that were set (the caller prints them). */
    readonly warnings: readonly string[] = [],
  ) {
    const values = new Map<string, boolean>();
    // kube's AllAlpha/AllBeta: every gate of that stage that was not set explicitly takes the value.
    const all: Partial<Record<FeatureStage, boolean>> = { ALPHA: explicit.get('AllAlpha'), BETA: explicit.get('AllBeta') };
    for (const [name, spec] of Object.entries(known)) {
      const special = name === 'AllAlpha' || name === 'AllBeta';
      values.set(name, explicit.get(name) ?? (special || spec.lockToDefault ? undefined : all[spec.stage]) ?? spec.default);
    }
    this.values = values;
  }

  /** Whether the gate is on. */
  enabled(name: KubeFeature): boolean {
    const v = this.values.get(name);
    if (v === undefined) throw new Error(`feature gate ${name} is not registered`);
    return v;
  }

  /** Every known gate with its stage and state, sorted by name (the metric and --help read this). */
  list(): { readonly name: string; readonly stage: FeatureStage; readonly default: boolean; readonly enabled: boolean }[] {
    return Object.keys(this.known)
      .sort()
      .map((name) => ({ name, stage: this.known[name]!.stage, default: this.known[name]!.default, enabled: this.values.get(name)! }));
  }
}

/** kube's defaults, nothing set. */
export function defaultFeatureGates(): FeatureGates {
  return new FeatureGates(KUBE_FEATURES, new Map());
}

/**
 * Parses the values of every `--feature-gates` flag (in order; later settings win) as kube's
 * colonSeparatedMultimapStringString and featureGate.Set do: comma-separated `[kube:]Name=bool`.
 * Throws FeatureGateError with kube's message: `missing bool value for X`, `invalid value of
 * X=y, err: strconv.ParseBool: ...`, `unrecognized feature gate: X`, `cannot set feature gate X
 * to false, feature is locked to true`, `component not registered: c`.
 */
export function parseFeatureGates(flagValues: readonly string[], known: Readonly<Record<string, FeatureSpec>> = KUBE_FEATURES): FeatureGates {
  const explicit = new Map<string, boolean>();
  const warnings: string[] = [];
  for (const value of flagValues) {
    const errs: string[] = [];
    for (const part of value.split(',')) {
      if (part.trim() === '') continue;
      let entry = part;
      const colon = entry.indexOf(':');
      const eq = entry.indexOf('=');
      // A component prefix (`kube:`) comes before the first `=`; only kube's gates exist here.
      if (colon !== -1 && (eq === -1 || colon < eq)) {
        const component = entry.slice(0, colon).trim();
        if (component !== 'kube') throw new FeatureGateError(`component not registered: ${component}`);
        entry = entry.slice(colon + 1);
      }
      const i = entry.indexOf('=');
      const name = (i === -1 ? entry : entry.slice(0, i)).trim();
      if (i === -1) throw new FeatureGateError(`missing bool value for ${name}`);
      const text = entry.slice(i + 1).trim();
      const v = parseGoBool(text);
      if (v === undefined) throw new FeatureGateError(`invalid value of ${name}=${text}, err: strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax`);
      const spec = known[name];
      // kube stops at the first unknown gate.
      if (spec === undefined) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && spec.default !== v) {
        errs.push(`cannot set feature gate ${name} to ${v}, feature is locked to ${spec.default}`);
        continue;
      }
      explicit.set(name, v);
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${v}. It will be removed in a future release.`);
      else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${v}. It will be removed in a future release.`);
    }
    // Go's utilerrors aggregate: one error as itself, several in brackets.
    if (errs.length === 1) throw new FeatureGateError(errs[0]!);
    if (errs.length > 1) throw new FeatureGateError(`[${errs.join(', ')}]`);
  }
  return new FeatureGates(known, explicit, warnings);
}

/** The `--feature-gates` lines of --help, as kube lists them: GA and deprecated gates are left out. */
export function featureGateHelpLines(known: Readonly<Record<string, FeatureSpec>> = KUBE_FEATURES): string[] {
  return Object.keys(known)
    .filter((n) => known[n]!.stage === 'ALPHA' || known[n]!.stage === 'BETA')
    .map((n) => `kube:${n}=true|false (${known[n]!.stage} - default=${known[n]!.default})`)
    .sort();
}

function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** strconv.Quote for the printable ASCII that flag values are. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}
