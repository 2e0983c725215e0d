import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onResponseEnd, takeResponseEndWork } from '../../src/request/response-end.ts';

describe('onResponseEnd', () => {
  it('runs each piece of work once, in order, on finish or close, whichever comes first', () => {
    const res = new EventEmitter();
    const ran: string[] = [];
    onResponseEnd(res, () => ran.push('a'));
    onResponseEnd(res, () => ran.push('b'));
    expect(res.listenerCount('finish') + res.listenerCount('close')).toBe(2);
    res.emit('finish');
    res.emit('close');
    expect(ran).toEqual(['a', 'b']);
    expect(res.listenerCount('finish') + res.listenerCount('close')).toBe(0);
    // Work added after the end starts a new list (a response is not reused; nothing is lost).
    const closed = new EventEmitter();
    onResponseEnd(closed, () => ran.push('c'));
    closed.emit('close');
    closed.emit('finish');
    expect(ran).toEqual(['a', 'b', 'c']);
  });

  it('hands the work to whoever takes the response over, and then no longer runs it itself', () => {
    const res = new EventEmitter();
    let ran = 0;
    onResponseEnd(res, () => ran++);
    onResponseEnd(res, () => ran++);
    const work = takeResponseEndWork(res);
    expect(work).toHaveLength(2);
    res.emit('close');
    expect(ran).toBe(0);
    for (const fn of work) fn();
    expect(ran).toBe(2);
    expect(takeResponseEndWork(new EventEmitter())).toEqual([]);
  });
});
