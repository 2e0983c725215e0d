/**
 * YAML decoding that keeps the event loop free: small plain bodies decode inline; large ones
 * (YAML parsing costs about 0.4 s per MB) and those whose cost is not bounded by their size
 * (aliases, explicit keys) go to a worker thread, so no body can stall every other request.
 * Same results and errors as decodeYaml.
 */
import { Worker } from 'node:worker_threads';
import { ApiError, errors, type StatusObject } from '../api/status-errors.ts';
import { decodeYaml } from './yaml-decode.ts';
import type { DecodeResult } from './json-decode.ts';

/** Bodies at least this large are decoded off the main thread. */
export const OFF_THREAD_YAML_BYTES = 64 * 1024;

/**
 * Whether decoding may cost far more than the body's size suggests: aliases can multiply a small
 * body into hundreds of thousands of nodes before go-yaml's alias ratio stops them, and explicit
 * (`? `) keys are where parsers do their most expensive work. Such bodies go to the worker
 * whatever their size; a plain manifest never contains either.
 */
export function costlyYaml(body: Uint8Array): boolean {
  const n = body.length;
  for (let i = 0; i < n; i++) {
    const c = body[i];
    if (c !== 0x2a && c !== 0x3f) continue;
    const prev = i === 0 ? 0x0a : body[i - 1]!;
    const next = i + 1 < n ? body[i + 1]! : 0x0a;
    const afterBlank = prev === 0x20 || prev === 0x0a || prev === 0x09 || prev === 0x5b || prev === 0x7b || prev === 0x2c;
    // `*name` after a blank or flow indicator is an alias; `? ` there is an explicit key.
    if (afterBlank && (c === 0x2a ? next !== 0x20 && next !== 0x0a : next === 0x20 || next === 0x0a)) return true;
  }
  return false;
}

type Reply = { id: number; ok: true; result: DecodeResult } | { id: number; ok: false; status?: StatusObject; message: string };

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: (r: DecodeResult) => void; reject: (e: unknown) => void }>();

function failAll(w: Worker, err: unknown): void {
  if (worker !== w) return;
  worker = undefined;
  for (const p of pending.values()) p.reject(err);
  pending.clear();
}

function getWorker(): Worker {
  if (worker) return worker;
  // Compiled ahead of time (build/, as `npm start` runs), the worker is plain JavaScript beside this
  // file; from source (tests, tsx), the .mjs entry first registers tsx in the worker thread.
  const compiled = !import.meta.url.endsWith('.ts');
  const w = new Worker(new URL(compiled ? './yaml-decode-worker.js' : './yaml-decode-worker.mjs', import.meta.url));
  w.unref();
  w.on('message', (reply: Reply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.ok) p.resolve(reply.result);
    else if (reply.status) {
      const s = reply.status;
      p.reject(new ApiError(s.code, s.reason ?? '', s.message ?? reply.message, s.details));
    } else p.reject(errors.badRequest(reply.message));
  });
  w.on('error', (err) => failAll(w, errors.internal(`YAML decoder failed: ${err.message}`)));
  w.on('exit', () => failAll(w, errors.internal('YAML decoder stopped')));
  worker = w;
  return w;
}

/** Decodes a YAML body like decodeYaml, off the main thread when it is large. */
export function decodeYamlAsync(body: Uint8Array, opts: { expectedKind?: string; applyPatch?: boolean } = {}): Promise<DecodeResult> {
  if (body.length < OFF_THREAD_YAML_BYTES && !costlyYaml(body)) {
    try {
      return Promise.resolve(decodeYaml(body, opts));
    } catch (err) {
      return Promise.reject(err);
    }
  }
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const w = getWorker();
    w.ref();
    const done = () => {
      if (pending.size === 0) w.unref();
    };
    pending.set(id, {
      resolve: (r) => {
        resolve(r);
        done();
      },
      reject: (e) => {
        reject(e);
        done();
      },
    });
    w.postMessage({ id, body, expectedKind: opts.expectedKind, applyPatch: opts.applyPatch });
  });
}
