// A first reason for a newly listed disagreement, from its kind; reasons are edited by hand after.
import type { Aspect, CorpusEntry, Outcome } from './harness.ts';

export function reasonFor(e: CorpusEntry, exp: Outcome, ours: Outcome, aspects: readonly Aspect[]): string {
  if (aspects.includes('phase')) {
    if (exp.phase === 'compile') return `kube rejects at compile time (${(exp.error ?? '').split('\n')[0]?.slice(0, 120)}); ours ${ours.phase}`;
    if (ours.phase === 'compile') return `ours rejects at compile time (${(ours.error ?? '').split('\n')[0]?.slice(0, 120)}); kube ${exp.phase}`;
    return `kube ${exp.phase}, ours ${ours.phase}`;
  }
  if (aspects.includes('value')) return 'value differs';
  if (aspects.includes('costLimit')) return 'cost-limit outcome differs';
  if (aspects.includes('cost')) return `runtime cost: kube ${exp.cost}, ours ${ours.cost}`;
  return `estimate: kube ${JSON.stringify(exp.estimate)}, ours ${JSON.stringify(ours.estimate)}${e.schema ? ' (schema-typed)' : ''}`;
}
