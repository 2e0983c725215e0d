// Member calls on a dyn receiver, checked as cel-go checks them. The engine accepts any arguments
// when the receiver is dyn (`object.spec.name.startsWith(1)`, common in admission policies whose
// `object` is dyn); cel-go still resolves the call against the function's member overloads and
// refuses it when none takes the arguments' types ("found no matching overload for 'startsWith'
// applied to 'dyn.(int)'"). Only arguments of known types are judged; a dyn argument matches.
import { TypeError as CelTypeError } from '@marcbachmann/cel-js';
import { allNodes, type EngineNode } from './engine-ast.ts';
import { celGoTypeName, type CheckedType } from './introspect.ts';

/** A member overload as the engine declares it (engine type names: `string`, `list<A>`, `dyn`). */
export interface MemberOverload {
  readonly name: string;
  readonly receiverType: string;
  readonly params: readonly string[];
}

type Node = EngineNode & { readonly checkedType?: CheckedType };

/** Whether a declared parameter type takes an argument of this engine type. */
function accepts(param: string, arg: string): boolean {
  if (param === arg || param === 'dyn' || arg === 'null') return true;
  // Type parameters (`A`, `T`, `list<A>`) and dyn elements (`list<dyn>`) take any type of that shape.
  const head = (t: string): string => t.replace(/<.*$/, '');
  if (/^[A-Z]$/.test(param)) return true;
  return head(param) === head(arg) && /<(?:.*\b(?:dyn|[A-Z])\b.*)>/.test(param);
}

/** Throws cel-go's error for the first member call on a dyn receiver that no overload of its function takes. */
export function checkDynMemberCalls(root: EngineNode, overloads: ReadonlyMap<string, readonly MemberOverload[]>): void {
  for (const node of allNodes(root) as Node[]) {
    if (node.op !== 'rcall' || node.meta.macro !== undefined || node.meta.alternate !== undefined) continue;
    const [name, receiver, args] = node.args as [string, Node, Node[]];
    const rt = receiver.checkedType;
    if (rt?.kind !== 'dyn' || rt.valueType !== undefined) continue;
    const candidates = overloads.get(name)?.filter((o) => o.params.length === args.length) ?? [];
    if (candidates.length === 0) continue;
    const argTypes = args.map((a) => a.checkedType);
    if (argTypes.some((t) => t === undefined || t.kind === 'dyn' || t.kind === 'param' || typeof t.name !== 'string')) continue;
    const names = argTypes.map((t) => (t as CheckedType).name as string);
    if (candidates.some((o) => o.params.every((p, i) => accepts(p, names[i] as string)))) continue;
    const shown = argTypes.map((t) => celGoTypeName(t, 'overload')).join(', ');
    throw new CelTypeError({ code: 'no_matching_overload', message: `found no matching overload for '${name}' applied to 'dyn.(${shown})'`, node: node as never });
  }
}
