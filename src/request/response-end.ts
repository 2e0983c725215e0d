/**
 * Work to do once when a response ends: finished, or its connection or stream gone. The in-flight
 * limits and API Priority and Fairness release what a request holds here. One list per response and
 * one shared listener for both events, rather than a run-once wrapper (and its closure) per piece
 * of work and event: fewer objects for every request, and a watch that leaves the response behind
 * (src/server/handlers/watch-http2.ts) takes the list as it is.
 */
import type { EventEmitter } from 'node:events';

const endWork = Symbol('response-end-work');

type Response = EventEmitter & { [endWork]?: (() => void)[] };

/** Runs `fn` once when `res` finishes or closes, whichever comes first. */
export function onResponseEnd(res: EventEmitter, fn: () => void): void {
  const r = res as Response;
  const work = r[endWork];
  if (work !== undefined) {
    work.push(fn);
    return;
  }
  r[endWork] = [fn];
  r.once('finish', runEndWork);
  r.once('close', runEndWork);
}

function runEndWork(this: Response): void {
  const work = this[endWork];
  if (work === undefined) return;
  this[endWork] = undefined;
  this.removeListener('finish', runEndWork);
  this.removeListener('close', runEndWork);
  for (const fn of work) fn();
}

/** Takes a response's end work away from it, to be run by whoever now follows the request to its end. */
export function takeResponseEndWork(res: EventEmitter): (() => void)[] {
  const r = res as Response;
  const work = r[endWork] ?? [];
  r[endWork] = undefined;
  r.removeListener('finish', runEndWork);
  r.removeListener('close', runEndWork);
  return work;
}
