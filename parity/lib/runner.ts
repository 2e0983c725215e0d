/**
 * Runs scenarios against the two servers in lockstep: each step goes to both at once, each answer is
 * normalized with that server's symbol tables, and the two views are compared.
 */
import { basename } from 'node:path';
import { send, type Endpoint, type RawResponse } from './http.ts';
import { diffValues, type DiffLine } from './diff.ts';
import { NormalizeContext, normalizeResponse, parseJsonStream, type View } from './normalize.ts';
import { encodeBody, readPath, substitute, type Scenario, type Step } from './scenario.ts';

export interface StepResult {
  /** corpus file name without .yaml */
  readonly file: string;
  readonly scenario: string;
  readonly index: number;
  readonly name: string;
  readonly method: string;
  /** The path as sent to kube (after substitution) */
  readonly path: string;
  readonly kube: View;
  readonly ours: View;
  readonly diffs: readonly DiffLine[];
}

/** Per-server state of a scenario: saved values and normalization symbols. */
interface Side {
  readonly ep: Endpoint;
  readonly vars: Record<string, unknown>;
  readonly ctx: NormalizeContext;
}

const USER_AGENT = 'parity-harness/v1.32.4 (linux/amd64) kubernetes/parity';

/** Runs one scenario: its namespace is created first and deleted after (neither compared). */
export async function runScenario(sc: Scenario, kube: Endpoint, ours: Endpoint): Promise<StepResult[]> {
  const base = { ...sc.vars, ns: sc.namespace };
  const sides: [Side, Side] = [
    { ep: kube, vars: { ...base }, ctx: new NormalizeContext() },
    { ep: ours, vars: { ...base }, ctx: new NormalizeContext() },
  ];
  const nsBody = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: sc.namespace } }));
  await Promise.all(sides.map((s) => send(s.ep, {
    method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT }, body: nsBody, timeoutMs: 10_000,
  })));
  const results: StepResult[] = [];
  try {
    for (const [index, step] of sc.steps.entries()) {
      const [rk, ro] = await Promise.all(sides.map((s) => execute(step, s)));
      const collection = isCollectionPath(substitute(step.path, sides[0].vars) as string);
      const vk = normalizeResponse(rk!, sides[0].ctx, collection);
      const vo = normalizeResponse(ro!, sides[1].ctx, collection);
      if (!step.compare) continue;
      results.push({
        file: basename(sc.file, '.yaml'),
        scenario: sc.id,
        index,
        name: step.name,
        method: step.method,
        path: substitute(step.path, sides[0].vars) as string,
        kube: vk,
        ours: vo,
        diffs: diffValues(vk, vo),
      });
    }
  } finally {
    await Promise.all(sides.map((s) => send(s.ep, {
      method: 'DELETE', path: `/api/v1/namespaces/${sc.namespace}`, headers: { 'user-agent': USER_AGENT }, timeoutMs: 10_000,
    })));
  }
  return results;
}

const SUBRESOURCES = new Set(['status', 'finalize', 'token', 'scale']);

/**
 * Does a resource path address a collection (`.../configmaps`, `/api/v1/namespaces`) rather than
 * one object (`.../configmaps/a`, `.../namespaces/a/status`)?
 */
export function isCollectionPath(path: string): boolean {
  const segs = path.split('?')[0]!.split('/').filter((x) => x !== '');
  const rest = segs[0] === 'api' ? segs.slice(2) : segs[0] === 'apis' ? segs.slice(3) : [];
  if (rest.length === 0 || SUBRESOURCES.has(rest[rest.length - 1]!)) return false;
  const below = rest[0] === 'namespaces' && rest.length >= 3 ? rest.slice(2) : rest;
  return below.length === 1;
}

/** Sends one step to one server (repeating it while polling), then records what it saves. */
async function execute(step: Step, side: Side): Promise<RawResponse> {
  if (step.sleep > 0) await new Promise((f) => setTimeout(f, step.sleep * 1000));
  const deadline = Date.now() + (step.poll?.seconds ?? 0) * 1000;
  let res: RawResponse;
  for (;;) {
    const headers = substitute(step.headers, side.vars) as Record<string, string>;
    headers['user-agent'] ??= USER_AGENT;
    res = await send(side.ep, {
      method: step.method,
      path: substitute(step.path, side.vars) as string,
      headers,
      body: encodeBody(step, side.vars),
      chunked: step.chunked,
      http2: step.http2,
      timeoutMs: step.timeoutMs,
    });
    if (!step.poll || res.status === step.poll.until || Date.now() > deadline) break;
    await new Promise((f) => setTimeout(f, 250));
  }
  if (Object.keys(step.save).length > 0) {
    let doc: unknown;
    try {
      doc = parseJsonStream(res.body.toString('utf8'))[0];
    } catch {
      doc = undefined;
    }
    for (const [name, path] of Object.entries(step.save)) {
      const v = readPath(doc, path);
      side.vars[name] = v === undefined ? '' : v;
    }
  }
  return res;
}
