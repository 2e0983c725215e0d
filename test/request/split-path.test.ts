/** splitPath: a URL path's segments, leading, trailing and repeated outer slashes ignored, inner empty segments kept. */
import { describe, expect, it } from 'vitest';
import { splitPath } from '../../src/request/request-info.ts';

describe('splitPath', () => {
  it('splits on slashes, trimming the outer ones', () => {
    expect(splitPath('/api/v1/namespaces/ns/configmaps/x')).toEqual(['api', 'v1', 'namespaces', 'ns', 'configmaps', 'x']);
    expect(splitPath('///apis/apps/v1///')).toEqual(['apis', 'apps', 'v1']);
    expect(splitPath('api')).toEqual(['api']);
  });
  it('gives no segments for the root, an empty path or slashes only', () => {
    expect(splitPath('/')).toEqual([]);
    expect(splitPath('')).toEqual([]);
    expect(splitPath('////')).toEqual([]);
  });
  it('keeps inner empty segments, as kube\'s request info sees them', () => {
    expect(splitPath('/api//v1')).toEqual(['api', '', 'v1']);
  });
});
