// The reason recorded for a known disagreement: the mechanism behind it, recognised from the entry
// and the two outcomes, so the list says why each entry differs and what would fix it.
import type { Aspect, CorpusEntry, Outcome } from './harness.ts';

const RULES: ReadonlyArray<readonly [(e: CorpusEntry, exp: Outcome, ours: Outcome, a: readonly Aspect[]) => boolean, string]> = [
  [(e) => /\b(url|isURL)\(|format\.uri/.test(e.expr), "URL parsing is not yet Go's net/url.ParseRequestURI (opaque URIs, spaces, percent-escape validation, zones in hosts, its error texts)"],
  [(e) => /quantity\(|isQuantity/.test(e.expr), "Quantity arithmetic does not reproduce resource.Quantity's int64/inf.Dec representation (isInteger of binary fractions, overflow near 8Ei, error-argument costs)"],
  [(e, exp) => /timestamp|getFullYear|getHours|getMinutes|getSeconds|getMilliseconds|getDay|getDate|getMonth/.test(e.expr) || exp.value?.t === 'timestamp', 'timestamps are JavaScript Dates in the engine: no nanoseconds, no preserved UTC offset, and time-zone names are not resolved'],
  [(e) => /\bnull\s*[<>]=?\s*dyn|dyn\([^)]*\)\s*[<>]=?\s*null/.test(e.expr), "the engine's checker rejects ordering null against dyn, which cel-go accepts and fails when evaluated"],
  [(e, exp) => e.schema !== undefined && exp.phase === 'compile', 'schema objects are dyn to the checker: undefined fields and field types are not checked at compile time'],
  [(e) => /optMap|optFlatMap/.test(e.expr), "optMap/optFlatMap are not costed as cel-go's expansion of them"],
  [(e) => e.id.startsWith('limits/'), "parser limits (nesting depth, expression size) and the cost of deep constant nesting differ from cel-go's parser"],
  [(_e, exp, ours, a) => a.includes('cost') && exp.phase === 'eval' && ours.phase === 'eval', 'after a failed argument cel-go still evaluates and charges the remaining arguments and callers; the engine stops at the first failure'],
  [(e) => /type\(/.test(e.expr), "type values of optionals and some conversions differ from cel-go's type() results"],
  [(e) => /format\(/.test(e.expr), "string.format's clause rendering or its compile-time validation of constant arguments differs from cel-go's"],
  [(e) => /%|\//.test(e.expr) && /922337/.test(e.expr), 'int64 division and modulus edge cases at the minimum value differ from Go'],
  [(e) => /NaN/.test(e.expr), 'comparisons and conversions involving NaN differ from cel-go'],
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
