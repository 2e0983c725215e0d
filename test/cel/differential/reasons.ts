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
  if (aspects.includes('compileMessage')) return compileMessageReason(exp.error ?? '', ours.error ?? '');
  if (aspects.includes('message')) return `evaluation error text: kube ${JSON.stringify(exp.error)}, engine ${JSON.stringify(ours.error)}`;
  if (aspects.includes('cost')) return `runtime cost: kube ${exp.cost}, engine ${ours.cost}`;
  return `estimate: kube ${JSON.stringify(exp.estimate)}, engine ${JSON.stringify(ours.estimate)}${e.schema ? ' (schema-typed)' : ''}`;
}

/** Why a compile error's text differs from cel-go's, by the kind of error. */
function compileMessageReason(go: string, ours: string): string {
  const count = (text: string): number => text.split('\n').filter((l) => l.startsWith('ERROR: ')).length;
  if (count(go) > 1 && count(go) > count(ours)) return `cel-go reports every error it finds (${count(go)} here), sorted by position; src/cel reports the first`;
  if (/Syntax error: /.test(go)) return `syntax error in ANTLR's words (${go.split('\n')[0]?.slice(0, 100)}); the engine's parser words it ${JSON.stringify(ours.split('\n')[0]?.slice(0, 80))}`;
  if (/recursion/.test(go)) return 'parser limit: cel-go stops at its recursion limit in the ANTLR parse, the engine at its own depth check with another position';
  if (/reserved identifier/.test(go)) return 'reserved identifiers: cel-go names the word; the engine parses it as an identifier';
  if (/[[{,]\s*\?|\.\?/.test(go.split('\n')[1] ?? '')) return 'optional syntax ([?x], {?k: v}) is rewritten before parsing, so positions point into the rewritten text';
  return `compile error text: kube ${JSON.stringify(go.split('\n')[0])}, engine ${JSON.stringify(ours.split('\n')[0])}`;
}
