/**
 * Feature gates: kube's known gates (kube-features.ts), their parsing (gates.ts), and the
 * kubernetes_feature_enabled metric. A server holds one FeatureGates value; modules ask it.
 */
import type { MetricsRegistry } from '../metrics/registry.ts';
import type { FeatureGates } from './gates.ts';

export { FeatureGates, FeatureGateError, defaultFeatureGates, featureGateHelpLines, parseFeatureGates, type FeatureSpec, type FeatureStage } from './gates.ts';
export { KUBE_FEATURES, type KubeFeature } from './kube-features.ts';

/** kube's kubernetes_feature_enabled: one sample per gate, `stage` empty for GA as kube writes it. */
export function registerFeatureMetrics(registry: MetricsRegistry, gates: FeatureGates): void {
  const g = registry.gauge({
    name: 'kubernetes_feature_enabled',
    help: 'This metric records the data about the stage and enablement of a k8s feature.',
    labels: ['name', 'stage'],
    stability: 'BETA',
  });
  for (const f of gates.list()) g.labels(f.name, f.stage === 'GA' ? '' : f.stage).set(f.enabled ? 1 : 0);
}
