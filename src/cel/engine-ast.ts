// The engine's AST node, as far as src/cel's passes need it, and a walk over all nodes including
// macro expansions.

export interface EngineNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta: { evaluate: Evaluate; macro?: EngineNode; alternate?: EngineNode };
  evaluate: Evaluate;
  handle?: (...a: never[]) => unknown;
}
export type Evaluate = (ev: unknown, ast: EngineNode, ctx: unknown) => unknown;

export function isNode(x: unknown): x is EngineNode {
  return x !== null && typeof x === 'object' && typeof (x as { op?: unknown }).op === 'string' && typeof (x as { meta?: unknown }).meta === 'object';
}

/** The sub-nodes of a node, including a macro's expansion or alternate. */
export function childNodes(node: EngineNode): EngineNode[] {
  const out: EngineNode[] = [];
  const visit = (x: unknown): void => {
    if (isNode(x)) out.push(x);
    else if (Array.isArray(x)) x.forEach(visit);
    else if (x !== null && typeof x === 'object' && !(x instanceof Uint8Array) && x.constructor === Object) Object.values(x).forEach(visit);
  };
  visit(node.args);
  const meta = node.meta as EngineNode['meta'] | undefined;
  if (meta === undefined) return out;
  if (meta.macro !== undefined) out.push(meta.macro);
  if (meta.alternate !== undefined) out.push(meta.alternate);
  return out;
}

/** Every node reachable from root, once. */
export function allNodes(root: EngineNode): EngineNode[] {
  const seen = new Set<EngineNode>();
  const stack = [root];
  const out: EngineNode[] = [];
  while (stack.length > 0) {
    const n = stack.pop() as EngineNode;
    if (seen.has(n)) continue;
    seen.add(n);
    if ((n.meta as unknown) !== undefined) out.push(n);
    stack.push(...childNodes(n));
  }
  return out;
}

/**
 * The node's evaluation as a function that stays valid when wrapped: the engine's prototype
 * `evaluate` replaces itself on the node at first call (which would discard a wrapper), so an
 * unwrapped node is evaluated through its meta (alternate, macro or evaluate) instead.
 */
export function currentEvaluate(node: EngineNode): Evaluate {
  if (Object.hasOwn(node, 'evaluate')) return node.evaluate;
  return (ev, ast, ctx) => {
    const meta = node.meta;
    if (meta.alternate !== undefined) return meta.alternate.evaluate(ev, meta.alternate, ctx);
    if (meta.macro !== undefined) return meta.macro.evaluate(ev, meta.macro, ctx);
    return meta.evaluate(ev, ast, ctx);
  };
}
