import { describe, expect, it } from 'vitest';
import { negotiateOutput, negotiateWatch, parseAccept, parseContentType, restfulAccepts, wantsPretty } from '../../src/codec/negotiate.ts';
import { ApiError } from '../../src/api/status-errors.ts';

const TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const TABLE_V1B1 = 'application/json;as=Table;v=v1beta1;g=meta.k8s.io';
const builtIn = { serializers: ['json', 'yaml', 'protobuf'] as const, table: true };

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
}

describe('Accept negotiation', () => {
  it('defaults to JSON without Accept', () => {
    expect(negotiateOutput({ accept: undefined })).toEqual({ kind: 'json', serializer: 'json', mediaType: 'application/json', pretty: false });
  });

  it('serves kubectl get its Table, v1 first, and falls back when tables are not offered', () => {
    const accept = `${TABLE_V1},${TABLE_V1B1},application/json`;
    expect(negotiateOutput({ accept, offer: builtIn })).toMatchObject({ kind: 'table', version: 'v1', mediaType: 'application/json' });
    expect(negotiateOutput({ accept: `${TABLE_V1B1},application/json`, offer: builtIn })).toMatchObject({ kind: 'table', version: 'v1beta1' });
    expect(negotiateOutput({ accept, offer: { table: false } })).toMatchObject({ kind: 'json' });
  });

  it('orders by q-value and specificity', () => {
    expect(negotiateOutput({ accept: 'application/json;q=0.5, application/yaml' })).toMatchObject({ kind: 'yaml', mediaType: 'application/yaml' });
    expect(negotiateOutput({ accept: 'application/*' })).toMatchObject({ kind: 'json' });
    expect(negotiateOutput({ accept: '*/*', offer: builtIn })).toMatchObject({ kind: 'json' });
    expect(parseAccept('*/*, text/html;q=0.9, application/json').map((c) => `${c.type}/${c.subtype}`)).toEqual([
      'application/json',
      '*/*',
      'text/html',
    ]);
  });

  it('offers protobuf only when the caller does', () => {
    const accept = 'application/vnd.kubernetes.protobuf, application/json';
    expect(negotiateOutput({ accept })).toMatchObject({ kind: 'json' });
    expect(negotiateOutput({ accept, offer: builtIn })).toMatchObject({ kind: 'protobuf', mediaType: 'application/vnd.kubernetes.protobuf' });
  });

  it('serves PartialObjectMetadata and its list form, rejects unknown conversions', () => {
    expect(negotiateOutput({ accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' })).toMatchObject({
      kind: 'partial-metadata-list',
      version: 'v1',
    });
    expect(negotiateOutput({ accept: 'application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1' })).toMatchObject({
      kind: 'partial-metadata',
      serializer: 'yaml',
    });
    const e = apiError(() => negotiateOutput({ accept: 'application/json;as=Foo;g=meta.k8s.io;v=v1' }));
    expect(e.code).toBe(406);
  });

  it('answers 406 listing the offered types', () => {
    const e = apiError(() => negotiateOutput({ accept: 'text/html', offer: builtIn }));
    expect(e.code).toBe(406);
    expect(e.reason).toBe('NotAcceptable');
    expect(e.message).toBe('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  });

  it('pretty-prints JSON for pretty=true, the pretty=1 parameter and curl/Wget/browsers', () => {
    expect(negotiateOutput({ accept: 'application/json', prettyQuery: 'true' }).pretty).toBe(true);
    expect(negotiateOutput({ accept: 'application/json;pretty=1' }).pretty).toBe(true);
    expect(negotiateOutput({ accept: undefined, userAgent: 'curl/8.5.0' }).pretty).toBe(true);
    expect(negotiateOutput({ accept: undefined, userAgent: 'curl/8.5.0', prettyQuery: 'false' }).pretty).toBe(false);
    expect(negotiateOutput({ accept: 'application/yaml', userAgent: 'curl/8.5.0' }).pretty).toBe(false);
    expect(wantsPretty(undefined, 'kubectl/v1.32.0')).toBe(false);
    expect(wantsPretty(undefined, 'Mozilla/5.0 (X11)')).toBe(true);
  });
});

describe('watch negotiation', () => {
  it('streams JSON as application/json, Tables included', () => {
    const w = negotiateWatch({ accept: `${TABLE_V1},application/json`, offer: builtIn });
    expect(w.contentType).toBe('application/json');
    expect(w.output.kind).toBe('table');
    expect(negotiateWatch({ accept: 'application/vnd.kubernetes.protobuf;stream=watch', offer: builtIn }).contentType).toBe(
      'application/vnd.kubernetes.protobuf;stream=watch',
    );
  });

  it('refuses YAML watches with 406 listing the streaming types', () => {
    const e = apiError(() => negotiateWatch({ accept: 'application/yaml', offer: builtIn }));
    expect(e.code).toBe(406);
    expect(e.message).toBe(
      'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    );
  });
});

describe('Content-Type of request bodies', () => {
  it('maps bodies and patches, defaulting create/update to JSON', () => {
    expect(parseContentType('application/json; charset=utf-8', { verb: 'body' })).toEqual({ kind: 'json', mediaType: 'application/json' });
    expect(parseContentType(undefined, { verb: 'body' }).kind).toBe('json');
    expect(parseContentType('application/yaml', { verb: 'body' }).kind).toBe('yaml');
    expect(parseContentType('application/json-patch+json', { verb: 'patch' }).kind).toBe('json-patch');
    expect(parseContentType('application/merge-patch+json', { verb: 'patch' }).kind).toBe('merge-patch');
    expect(parseContentType('application/strategic-merge-patch+json', { verb: 'patch' }).kind).toBe('strategic-merge-patch');
    expect(parseContentType('application/apply-patch+yaml', { verb: 'patch' }).kind).toBe('apply-patch');
  });

  it('answers 415 with the accepted list', () => {
    const e = apiError(() => parseContentType('text/plain', { verb: 'body' }));
    expect(e.code).toBe(415);
    expect(e.reason).toBe('UnsupportedMediaType');
    expect(e.message).toBe('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
    const p = apiError(() => parseContentType('application/strategic-merge-patch+json', { verb: 'patch', strategicMergePatch: false }));
    expect(p.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    expect(apiError(() => parseContentType(undefined, { verb: 'patch' })).code).toBe(415);
    // As kube-apiserver v1.32.4 answers: the serializer's 415 has no details.
    expect(e.toStatus()).not.toHaveProperty('details');
  });

  it('a type no patch route consumes gets go-restful\'s bare 415', () => {
    const e = apiError(() => parseContentType('application/json', { verb: 'patch' }));
    expect(e.toStatus()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: '415: Unsupported Media Type', reason: 'UnsupportedMediaType', details: {}, code: 415 });
  });
});

describe('as kube-apiserver v1.32.4 answers', () => {
  it('never refuses a clause for q=0', () => {
    expect(negotiateOutput({ accept: '*/*;q=0' }).serializer).toBe('json');
    expect(negotiateOutput({ accept: 'application/json;q=0,application/yaml' }).serializer).toBe('yaml');
  });

  it('checks Accept as go-restful does before any handler: exact types or */* only', () => {
    const produces = ['application/json', 'application/yaml'];
    expect(restfulAccepts('application/*', produces)).toBe(false);
    expect(restfulAccepts('text/plain, application/yaml;q=0.1', produces)).toBe(true);
    expect(restfulAccepts('application/json;as=Table;g=meta.k8s.io;v=v1', produces)).toBe(true);
    expect(restfulAccepts('', produces)).toBe(true);
  });

  it('offers no conversions where kube allows none (discovery, errors)', () => {
    expect(apiError(() => negotiateOutput({ accept: 'application/json;as=Table;g=meta.k8s.io;v=v1', offer: { table: true, conversions: false } })).code).toBe(406);
  });
});
