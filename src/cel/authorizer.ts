// The authorizer library's values: authorizer.group(g).resource(r).namespace(ns).name(n).check(verb)
// and authorizer.path(p).check(verb), backed by an Authorizer the authorization issue provides.

/** The request attributes one check asks about (the user is fixed by the Authorizer instance). */
export interface AuthorizationAttributes {
  readonly verb: string;
  /** Set for resource checks. */
  readonly resource?: {
    readonly group: string;
    readonly resource: string;
    readonly subresource: string;
    readonly namespace: string;
    readonly name: string;
  };
  /** Set for non-resource (path) checks. */
  readonly path?: string;
}

export interface AuthorizationDecision {
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason: string;
  /** Set when the authorizer failed; the check then counts as not allowed. */
  readonly error?: string;
}

/** What the authorizer library calls; synchronous because expressions never do I/O themselves. */
export interface Authorizer {
  /** Decides for the expression's requesting user. */
  authorize(attrs: AuthorizationAttributes): AuthorizationDecision;
  /** The authorizer for service account `namespace/name` (authorizer.serviceAccount). */
  forServiceAccount(namespace: string, name: string): Authorizer;
}

export class DecisionValue {
  constructor(
    readonly decision: AuthorizationDecision['decision'],
    readonly reason: string,
    readonly error: string | undefined,
  ) {}
}

function decide(authz: Authorizer, attrs: AuthorizationAttributes): DecisionValue {
  const d = authz.authorize(attrs);
  return new DecisionValue(d.decision, d.reason, d.error);
}

export class PathCheckValue {
  constructor(
    readonly authz: Authorizer,
    readonly path: string,
  ) {}

  check(verb: string): DecisionValue {
    return decide(this.authz, { verb, path: this.path });
  }
}

export interface ResourceFields {
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

export class ResourceCheckValue {
  constructor(
    readonly authz: Authorizer,
    readonly fields: ResourceFields,
  ) {}

  /** A copy with some fields replaced (each builder call returns a new check). */
  with(patch: Partial<ResourceFields>): ResourceCheckValue {
    return new ResourceCheckValue(this.authz, { ...this.fields, ...patch });
  }

  check(verb: string): DecisionValue {
    return decide(this.authz, { verb, resource: this.fields });
  }
}

export class GroupCheckValue {
  constructor(
    readonly authz: Authorizer,
    readonly group: string,
  ) {}

  resource(resource: string): ResourceCheckValue {
    return new ResourceCheckValue(this.authz, { group: this.group, resource, subresource: '', namespace: '', name: '' });
  }
}

/**
 * The value bound to the `authorizer` variable. kube declares `authorizer.requestResource` as a
 * variable of its own (NewResourceAuthorizerVal): the resource check for the request's own group,
 * resource, subresource, namespace and name. Here it is a field of the authorizer value, which
 * the expression reaches by the same selection; it is absent (a "No such key" error, as an
 * unbound variable) where no request is being admitted.
 */
export class AuthorizerValue {
  readonly requestResource: ResourceCheckValue | undefined;

  constructor(
    readonly authz: Authorizer,
    request?: ResourceFields,
  ) {
    this.requestResource = request ? new ResourceCheckValue(authz, request) : undefined;
  }

  path(p: string): PathCheckValue {
    return new PathCheckValue(this.authz, p);
  }

  group(g: string): GroupCheckValue {
    return new GroupCheckValue(this.authz, g);
  }

  serviceAccount(namespace: string, name: string): AuthorizerValue {
    return new AuthorizerValue(this.authz.forServiceAccount(namespace, name));
  }
}
