/** kube-apiserver's long-running check (BasicLongRunningRequestCheck with its verbs and subresources) over parsed request info. */
import { describe, expect, it } from 'vitest';
import { isLongRunning } from '../../src/request/long-running.ts';
import { parseRequestInfo } from '../../src/request/request-info.ts';

const info = (method: string, url: string) => {
  const [path, query = ''] = url.split('?');
  return parseRequestInfo(method, path!, new URLSearchParams(query));
};

describe('isLongRunning', () => {
  it('is true for watches and the streaming subresources', () => {
    expect(isLongRunning(info('GET', '/api/v1/namespaces/default/pods?watch=true'))).toBe(true);
    expect(isLongRunning(info('GET', '/api/v1/watch/namespaces/default/pods'))).toBe(true);
    for (const sub of ['exec', 'attach', 'log', 'portforward', 'proxy']) {
      expect(isLongRunning(info('POST', `/api/v1/namespaces/default/pods/p/${sub}`)), sub).toBe(true);
      expect(isLongRunning(info('GET', `/apis/shell.example.com/v1/namespaces/default/boxes/b/${sub}`)), sub).toBe(true);
    }
    expect(isLongRunning(info('GET', '/debug/pprof/profile'))).toBe(true);
  });

  it('is false for ordinary requests, other subresources and a missing request info', () => {
    expect(isLongRunning(info('GET', '/api/v1/namespaces/default/pods'))).toBe(false);
    expect(isLongRunning(info('GET', '/api/v1/namespaces/default/pods/p'))).toBe(false);
    expect(isLongRunning(info('PUT', '/api/v1/namespaces/default/pods/p/status'))).toBe(false);
    expect(isLongRunning(info('GET', '/apis/wardle.example.com/v1alpha1/namespaces/default/flunders/f'))).toBe(false);
    // A resource named like a subresource is not one.
    expect(isLongRunning(info('GET', '/api/v1/namespaces/exec'))).toBe(false);
    expect(isLongRunning(info('GET', '/healthz'))).toBe(false);
    expect(isLongRunning(undefined)).toBe(false);
  });
});
