/**
 * Which handler serves a request, decided as kube-apiserver decides it. kube registers one
 * go-restful route per (path pattern, method) for every resource (installer.go) and lets
 * go-restful pick: a path no route matches is 404, a path some route matches with another method
 * is 405, and only then does a handler run. This module builds the same route table from the
 * served resource types and answers the same way, so the verbs a resource does not serve
 * (deletecollection on namespaces, anything but list/watch on `/api/v1/configmaps`) can never
 * reach a store, whatever the path spelling (`/namespaces//`, `%2e%2e`).
 *
 * Which verbs each resource and subresource serves is stated once, in api/resource-verbs.ts:
 * this table and discovery both read it there.
 */
import type { ResourceType } from '../api/types.ts';
import { resourceVerbs, subresourcesOf } from '../api/resource-verbs.ts';
import { splitPath } from '../request/request-info.ts';

/** The handler a route leads to (kube's action names, lower-cased). */
export type RouteAction = 'list' | 'create' | 'deletecollection' | 'watchlist' | 'get' | 'update' | 'patch' | 'delete' | 'watch';

interface Route {
  readonly tokens: readonly string[];
  readonly method: string;
  readonly action: RouteAction;
  readonly rt: ResourceType;
  readonly subresource: string;
}

const NS = '{namespace}';
const NAME = '{name}';

/** The methods of the collection and item paths for each discovery verb. */
const verbRoutes: Readonly<Record<string, readonly { item: boolean; method: string; action: RouteAction }[]>> = {
  list: [{ item: false, method: 'GET', action: 'list' }],
  create: [{ item: false, method: 'POST', action: 'create' }],
  deletecollection: [{ item: false, method: 'DELETE', action: 'deletecollection' }],
  get: [{ item: true, method: 'GET', action: 'get' }],
  update: [{ item: true, method: 'PUT', action: 'update' }],
  patch: [{ item: true, method: 'PATCH', action: 'patch' }],
  delete: [{ item: true, method: 'DELETE', action: 'delete' }],
  watch: [],
};

/** Routes of one resource type, as installer.go registers them (paths relative to the group/version). */
function routesOf(rt: ResourceType): Route[] {
  const routes: Route[] = [];
  const base = rt.namespaced ? ['namespaces', NS, rt.resource] : [rt.resource];
  const add = (tokens: string[], method: string, action: RouteAction, subresource = ''): void => {
    routes.push({ tokens, method, action, rt, subresource });
  };
  const verbs = resourceVerbs(rt);
  for (const verb of verbs) {
    for (const r of verbRoutes[verb] ?? []) add(r.item ? [...base, NAME] : base, r.method, r.action);
  }
  if (verbs.includes('watch')) {
    add(['watch', ...base], 'GET', 'watchlist');
    add(['watch', ...base, NAME], 'GET', 'watch');
  }
  // List and watch across all namespaces; nothing else is served there.
  if (rt.namespaced) {
    add([rt.resource], 'GET', 'list');
    add(['watch', rt.resource], 'GET', 'watchlist');
  }
  // A subresource's routes all live at its own path (`.../{name}/status`), whatever the verb.
  for (const sub of subresourcesOf(rt)) {
    const path = [...base, NAME, sub.name];
    for (const verb of sub.verbs) {
      for (const r of verbRoutes[verb] ?? []) add(path, r.method, r.action, sub.name);
    }
  }
  return routes;
}

/** Routes of one group/version, built once per set of resource types. */
export class RouteTable {
  private readonly routes: Route[];
  constructor(types: Iterable<ResourceType>) {
    this.routes = [...types].flatMap(routesOf);
  }

  /**
   * Resolves a request below the group/version prefix: the matched route and its path
   * parameters, or the go-restful answer (404 when no route has the path, 405 when none has the
   * method). `tokens` excludes the prefix; an empty list is the group/version's discovery path.
   */
  resolve(method: string, tokens: readonly string[]): RouteResolution {
    const candidates = this.routes.filter((r) => matches(r.tokens, tokens));
    if (candidates.length === 0) return { kind: 'not-found' };
    const withMethod = candidates.filter((r) => r.method === method);
    if (withMethod.length === 0) return { kind: 'method-not-allowed' };
    // go-restful prefers the route with the most literal segments.
    const best = withMethod.reduce((a, b) => (staticCount(b.tokens) > staticCount(a.tokens) ? b : a));
    const param = (p: string): string => tokens[best.tokens.indexOf(p)] ?? '';
    return {
      kind: 'route',
      rt: best.rt,
      action: best.action,
      namespace: best.tokens.includes(NS) ? param(NS) : '',
      name: best.tokens.includes(NAME) ? param(NAME) : '',
      subresource: best.subresource,
    };
  }
}

export type RouteResolution =
  | { readonly kind: 'not-found' }
  | { readonly kind: 'method-not-allowed' }
  | {
      readonly kind: 'route';
      readonly rt: ResourceType;
      readonly action: RouteAction;
      readonly namespace: string;
      readonly name: string;
      readonly subresource: string;
    };

/** go-restful's CurlyRouter: same length, literals equal, a `{param}` matches any segment (even an empty one). */
function matches(route: readonly string[], request: readonly string[]): boolean {
  if (route.length !== request.length) return false;
  return route.every((t, i) => t.startsWith('{') || t === request[i]);
}

function staticCount(tokens: readonly string[]): number {
  return tokens.filter((t) => !t.startsWith('{')).length;
}

/** The path segments as go-restful tokenizes them (leading and trailing slashes trimmed, empty inner segments kept). */
export { splitPath as routeTokens };
