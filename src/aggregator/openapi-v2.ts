/**
 * `/openapi/v2` with the remote groups in it, as kube-aggregator publishes it: the local
 * document first, then every remote APIService's Swagger 2.0 document merged in priority order,
 * where a path the document already has is left as it is (the local or earlier one wins) and a
 * definition or parameter that exists with other content is renamed `NAME_v2`, `NAME_v3`, ... in
 * the incoming document (its references follow). The remote documents are fetched in the
 * background with discovery (remote-discovery.ts) and the last good copy is kept while a backend
 * fails, so the merged document never waits on a backend.
 */
import type { OpenApiDocuments } from '../discovery/openapi-documents.ts';
import { encodeOpenApiV2Protobuf } from '../discovery/openapi-v2-protobuf.ts';
import { openApiHash } from '../schema/openapi.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Rewrites `$ref`s of `#/<section>/<name>` per `renames`, everywhere in `v`. */
function renameRefs(v: unknown, section: string, renames: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(v)) return v.map((x) => renameRefs(x, section, renames));
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === '$ref' && typeof x === 'string' && x.startsWith(`#/${section}/`)) {
      const name = x.slice(section.length + 3);
      out[k] = `#/${section}/${renames.get(name) ?? name}`;
    } else out[k] = renameRefs(x, section, renames);
  }
  return out;
}

const sorted = (o: Obj): Obj => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Merges `remote` into `into` (mutated): kube-aggregator's rules for paths, definitions and parameters. */
function mergeInto(into: { paths: Obj; definitions: Obj; parameters: Obj }, remote: Obj): void {
  let doc: Obj = remote;
  for (const section of ['definitions', 'parameters'] as const) {
    const mine = into[section];
    const theirs = isObj(doc[section]) ? doc[section] : {};
    const renames = new Map<string, string>();
    for (const [name, def] of Object.entries(theirs)) {
      if (!(name in mine) || JSON.stringify(mine[name]) === JSON.stringify(def)) continue;
      let n = 2;
      while (`${name}_v${n}` in mine || `${name}_v${n}` in theirs) n++;
      renames.set(name, `${name}_v${n}`);
    }
    if (renames.size > 0) doc = renameRefs(doc, section, renames) as Obj;
    const renamed = isObj(doc[section]) ? doc[section] : {};
    for (const [name, def] of Object.entries(renamed)) mine[renames.get(name) ?? name] ??= def;
  }
  for (const [path, item] of Object.entries(isObj(doc.paths) ? doc.paths : {})) {
    if (!(path in into.paths)) into.paths[path] = item;
  }
}

/** The local Swagger document with the remote ones merged in order; keys sorted as Go writes maps. */
export function mergeOpenApiV2(local: Obj, remotes: readonly Obj[]): Obj {
  const into = { paths: { ...(isObj(local.paths) ? local.paths : {}) }, definitions: { ...(isObj(local.definitions) ? local.definitions : {}) }, parameters: { ...(isObj(local.parameters) ? local.parameters : {}) } };
  for (const r of remotes) mergeInto(into, r);
  const out: Obj = { ...local, paths: sorted(into.paths), definitions: sorted(into.definitions) };
  if (Object.keys(into.parameters).length > 0) out.parameters = sorted(into.parameters);
  return out;
}

/**
 * The OpenAPI documents the front door serves: the local ones, with `/openapi/v2` merged with
 * `remotes()` (rebuilt only when the local document or `generation()` moved on).
 */
export function withRemoteOpenApiV2(local: OpenApiDocuments, remotes: () => readonly Obj[], generation: () => number): OpenApiDocuments {
  let merged: { localETag: string; generation: number; json: Buffer; etag: string; protobuf?: Buffer; lastModified: Date } | undefined;
  const current = () => {
    const localETag = local.v2ETag();
    const gen = generation();
    if (merged && merged.localETag === localETag && merged.generation === gen) return merged;
    const docs = remotes();
    if (docs.length === 0) {
      merged = { localETag, generation: gen, json: local.v2(), etag: localETag, lastModified: local.lastModified() };
      return merged;
    }
    const json = Buffer.from(JSON.stringify(mergeOpenApiV2(JSON.parse(local.v2().toString('utf8')) as Obj, docs)));
    merged = { localETag, generation: gen, json, etag: openApiHash(json), lastModified: new Date(Math.floor(Date.now() / 1000) * 1000) };
    return merged;
  };
  return {
    ...local,
    v2: () => current().json,
    v2ETag: () => current().etag,
    lastModified: () => current().lastModified,
    v2Protobuf: () => {
      const m = current();
      if (m.etag === local.v2ETag()) return local.v2Protobuf();
      m.protobuf ??= Buffer.from(encodeOpenApiV2Protobuf(JSON.parse(m.json.toString('utf8')) as Obj));
      return m.protobuf;
    },
  };
}
