// The reason recorded for a known disagreement: the mechanism behind it, recognised from the entry
// and the two outcomes, so the list says why each entry differs and what would fix it.
import type { Aspect, CorpusEntry, Outcome } from './harness.ts';

const RULES: ReadonlyArray<readonly [(e: CorpusEntry, exp: Outcome, ours: Outcome, a: readonly Aspect[]) => boolean, string]> = [
  [(e) => /type\(/.test(e.expr), "type values of optionals and type denotations differ from cel-go's type() results or estimates"],
];

export function reasonFor(e: CorpusEntry, exp: Outcome, ours: Outcome, aspects: readonly Aspect[]): string {
  for (const [test, reason] of RULES) if (test(e, exp, ours, aspects)) return reason;
  if (aspects.includes('phase')) {
    if (exp.phase === 'compile') return `kube rejects at compile time (${(exp.error ?? '').split('\n')[0]?.slice(0, 120)}); the engine ${ours.phase === 'eval' ? 'fails only when evaluating' : 'accepts it'}`;
    if (ours.phase === 'compile') return `the engine rejects at compile time (${(ours.error ?? '').split('\n')[0]?.slice(0, 120)}) what kube ${exp.phase === 'eval' ? 'fails only when evaluating' : 'accepts'}`;
    return `kube ${exp.phase === 'eval' ? 'fails when evaluating' : 'returns a value'}, the engine ${ours.phase === 'eval' ? 'fails' : 'returns a value'}`;
  }
  if (aspects.includes('value')) return `value differs: kube ${JSON.stringify(exp.value).slice(0, 80)}, engine ${JSON.stringify(ours.value).slice(0, 80)}`;
  if (aspects.includes('cost')) return `runtime cost: kube ${exp.cost}, engine ${ours.cost}`;
  return `estimate: kube ${JSON.stringify(exp.estimate)}, engine ${JSON.stringify(ours.estimate)}${e.schema ? ' (schema-typed)' : ''}`;
}
