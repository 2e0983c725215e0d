/**
 * The corpus: one YAML file per scenario under parity/corpus, each a sequence of requests run in its
 * own namespace. A step names its method as a key (`GET: /path`); `{ns}` and `{var}` are replaced by
 * the scenario's namespace, its matrix variables (`each`) and values saved from earlier answers
 * (`save`, which differ per server and are substituted per server).
 *
 *   description: what the scenario shows
 *   each: [{id: cm, ...vars}, ...]      # optional: one instance per entry, namespace suffixed by id
 *   exclusive: true                     # optional: run alone, after all others
 *   steps:
 *     - POST: /api/v1/namespaces/{ns}/configmaps
 *       body: {metadata: {name: a}}     # JSON-encoded; or raw: "text" sent verbatim
 *       patch: merge                    # json | merge | strategic | apply (sets Content-Type)
 *       contentType: application/yaml   # explicit Content-Type (body then YAML-encoded if yaml)
 *       accept: application/yaml        # Accept header; headers: {...} for any other
 *       save: {rv: metadata.resourceVersion}
 *       poll: {until: 404, seconds: 60} # repeat until that status (controllers act asynchronously)
 *       compare: false                  # a setup step: sent to both, not compared
 *       sleep: 3                        # wait before sending
 *       chunked: true                   # body sent chunked, without Content-Length
 *       http2: true                     # over HTTP/2 (default HTTP/1.1)
 *   In any string, {x:N} stands for N letters x (large bodies without large corpus files).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'CONNECT', 'TRACE', 'PROPFIND'] as const;

const PATCH_TYPES: Readonly<Record<string, string>> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

export interface Step {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body before substitution: an object (encoded per Content-Type) or raw text. */
  readonly body?: unknown;
  readonly raw?: string;
  readonly save: Readonly<Record<string, string>>;
  readonly poll?: { readonly until: number; readonly seconds: number };
  readonly compare: boolean;
  /** Send the body chunked, without Content-Length (a streamed upload). */
  readonly chunked: boolean;
  /** Send over HTTP/2 (kubectl's and client-go's transport). */
  readonly http2: boolean;
  /** Seconds to wait before sending (lets asynchronous controllers act, on both servers alike). */
  readonly sleep: number;
  /** Watches need longer than the default per-request limit. */
  readonly timeoutMs: number;
}

export interface Scenario {
  /** file stem plus matrix id: the unit the report is grouped by */
  readonly id: string;
  readonly file: string;
  readonly description: string;
  readonly namespace: string;
  readonly vars: Readonly<Record<string, unknown>>;
  readonly steps: readonly Step[];
  /** Runs alone after all other scenarios (it may destroy shared state on a server that gets it wrong). */
  readonly exclusive: boolean;
}

/** Loads every *.yaml file in `dir` (sorted, so runs are in a stable order). */
export function loadCorpus(dir: string, runSuffix = ''): Scenario[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
  return files.flatMap((f) => loadScenarioFile(join(dir, f), runSuffix));
}

export function loadScenarioFile(file: string, runSuffix = ''): Scenario[] {
  const doc = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const stem = basename(file, '.yaml');
  const each = (doc.each as Record<string, unknown>[] | undefined) ?? [{}];
  if (!Array.isArray(doc.steps)) throw new Error(`${file}: steps must be a list`);
  return each.map((vars) => {
    const id = vars.id === undefined ? stem : `${stem}-${String(vars.id)}`;
    const namespace = `p-${id}${runSuffix}`.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 63).replace(/-+$/, '');
    return {
      id,
      file,
      description: String(doc.description ?? ''),
      namespace,
      vars,
      steps: (doc.steps as unknown[]).map((s, i) => parseStep(s, i, file)),
      exclusive: doc.exclusive === true,
    };
  });
}

function parseStep(s: unknown, index: number, file: string): Step {
  if (!s || typeof s !== 'object') throw new Error(`${file}: step ${index + 1} is not a map`);
  const o = s as Record<string, unknown>;
  const method = METHODS.find((m) => typeof o[m] === 'string') ?? (typeof o.method === 'string' ? o.method : undefined);
  const path = method && typeof o[method] === 'string' ? (o[method] as string) : (o.path as string | undefined);
  if (!method || !path) throw new Error(`${file}: step ${index + 1} names no method and path`);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries((o.headers as Record<string, unknown> | undefined) ?? {})) headers[k.toLowerCase()] = String(v);
  if (typeof o.accept === 'string') headers.accept = o.accept;
  if (typeof o.patch === 'string') {
    const ct = PATCH_TYPES[o.patch];
    if (!ct) throw new Error(`${file}: step ${index + 1}: unknown patch type ${o.patch}`);
    headers['content-type'] = ct;
  }
  if (typeof o.contentType === 'string') headers['content-type'] = o.contentType;
  if ((o.body !== undefined || o.raw !== undefined) && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  // `contentType: none` sends the body with no Content-Type at all (as `kubectl create --raw -f` does).
  if (headers['content-type'] === 'none') delete headers['content-type'];
  const poll = o.poll as { until?: number; seconds?: number } | undefined;
  const watching = /[?&]watch=(1|true)/.test(path) || /\/watch\//.test(path);
  return {
    name: typeof o.name === 'string' ? o.name : `${method} ${path}`,
    method,
    path,
    headers,
    body: o.body,
    raw: typeof o.raw === 'string' ? o.raw : undefined,
    save: (o.save as Record<string, string> | undefined) ?? {},
    poll: poll ? { until: Number(poll.until ?? 404), seconds: Number(poll.seconds ?? 60) } : undefined,
    compare: o.compare !== false,
    sleep: Number(o.sleep ?? 0),
    chunked: o.chunked === true,
    http2: o.http2 === true,
    timeoutMs: Number(o.timeoutMs ?? (watching ? 15_000 : 10_000)),
  };
}

/** Replaces `{name}` in strings, and a whole-string `$name` by the variable's structured value. */
export function substitute(v: unknown, vars: Readonly<Record<string, unknown>>): unknown {
  if (typeof v === 'string') {
    const whole = /^\$([A-Za-z_]\w*)$/.exec(v);
    if (whole && whole[1]! in vars) return substitute(vars[whole[1]!], vars);
    // Repeated so that variables whose values mention other variables ({coll} = ".../{ns}/...") resolve.
    let out = v.replace(/\{x:(\d+)\}/g, (_m, n: string) => 'x'.repeat(Number(n)));
    for (let i = 0; i < 4; i++) {
      const next = out.replace(/\{([A-Za-z_]\w*)\}/g, (m, name: string) => (name in vars && typeof vars[name] !== 'object' ? String(vars[name]) : m));
      if (next === out) break;
      out = next;
    }
    return out;
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, vars));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[substitute(k, vars) as string] = substitute(x, vars);
    return out;
  }
  return v;
}

/** Encodes a step's body for the wire according to its Content-Type. */
export function encodeBody(step: Step, vars: Readonly<Record<string, unknown>>): Buffer | undefined {
  if (step.raw !== undefined) return Buffer.from(substitute(step.raw, vars) as string, 'utf8');
  if (step.body === undefined) return undefined;
  const body = substitute(step.body, vars);
  const ct = step.headers['content-type'] ?? '';
  // YAML 1.1 rules, as the server's go-yaml reads them: strings such as `y` or `on` get quoted.
  if (/yaml/.test(ct)) return Buffer.from(toYaml(body, { version: '1.1' }), 'utf8');
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** Reads a dot path (`metadata.resourceVersion`, `items.0.metadata.name`) from a decoded body. */
export function readPath(v: unknown, path: string): unknown {
  let cur = v;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
