/**
 * Small proxied answers of declared length are read whole before they are sent (remote-backend.ts):
 * an answer whose every byte arrived counts as complete even when its stream reports close before
 * end (the race that made Fastify's stream sender answer 500 "Premature close"); a short one is not.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readDeclared } from '../../src/aggregator/remote-backend.ts';

describe('readDeclared', () => {
  it('returns the whole body when it ends normally', async () => {
    const body = new PassThrough();
    const read = readDeclared(body, 11);
    body.write('hello ');
    body.end('world');
    expect((await read)?.toString()).toBe('hello world');
  });

  it('returns the whole body when the stream closes before emitting end, every byte received', async () => {
    const body = new PassThrough();
    const read = readDeclared(body, 5);
    body.write('abcde');
    await new Promise((r) => setImmediate(r));
    body.destroy();
    expect((await read)?.toString()).toBe('abcde');
  });

  it('refuses a body cut short, by close or by error', async () => {
    const closed = new PassThrough();
    const a = readDeclared(closed, 10);
    closed.write('abc');
    await new Promise((r) => setImmediate(r));
    closed.destroy();
    expect(await a).toBeUndefined();
    const failed = new PassThrough();
    const b = readDeclared(failed, 10);
    failed.write('abc');
    await new Promise((r) => setImmediate(r));
    failed.destroy(new Error('reset'));
    expect(await b).toBeUndefined();
  });

  it('reads an empty body of declared length 0', async () => {
    const body = new PassThrough();
    const read = readDeclared(body, 0);
    body.end();
    expect((await read)?.length).toBe(0);
  });
});
