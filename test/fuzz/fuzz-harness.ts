/**
 * What every fuzz test checks: an answer is either a success or a Status error; a 5xx is allowed
 * only where kube-apiserver itself answers 5xx (its typed conversion of apply bodies); and no
 * exception escapes a request (the front door logs each one to stderr, which we watch).
 */
import { afterAll, beforeAll, expect, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startTestServer, type TestServer } from '../server/harness.ts';

export interface Outcome {
  readonly label: string;
  readonly status: number;
  readonly body: string;
}

/**
 * kube's own 5xx: errors kube-apiserver returns without wrapping them in a Status (apply's typed
 * conversion, strategic merge's list type errors) come out without a reason, and the code
 * that reproduces them builds them on purpose with that reason. An exception nobody caught
 * becomes reason InternalError instead, so the two cannot be confused.
 */
export function isKubesOwn5xx(o: Outcome): boolean {
  if (o.status !== 500) return false;
  try {
    const { reason, message } = JSON.parse(o.body) as { reason?: string; message?: string };
    return reason === undefined || reason === '' || (reason === 'InternalError' && KUBES_OWN_INTERNAL_ERRORS.some((re) => re.test(message ?? '')));
  } catch {
    return false;
  }
}

/**
 * kube's errors.NewInternalError answers that kube gives on purpose (reason InternalError, like an
 * uncaught exception here, so told apart by message): a binding whose roleRef kind is neither Role
 * nor ClusterRole, written by a user who may neither escalate nor bind (the RBAC registry resolves
 * the role before validation runs).
 */
const KUBES_OWN_INTERNAL_ERRORS: readonly RegExp[] = [/^Internal error occurred: unsupported role reference kind: /];

export interface FuzzServer {
  readonly server: () => TestServer;
  readonly app: () => FastifyInstance;
  /** Uncaught exceptions the front door reported so far. */
  readonly uncaught: string[];
  send(label: string, method: string, url: string, body: unknown, contentType: string): Promise<Outcome>;
}

export function useFuzzServer(): FuzzServer {
  let ts: TestServer;
  const uncaught: string[] = [];
  let spy: ReturnType<typeof vi.spyOn> | undefined;
  beforeAll(async () => {
    // inject() carries no client certificate (anonymous): the decoders, not RBAC, are under test.
    ts = await startTestServer({ config: { authorizationModes: ['AlwaysAllow'] } });
    const original = console.error.bind(console);
    spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      const text = args.map(String).join(' ');
      if (text.startsWith('kube-gateway: uncaught exception')) uncaught.push(text.split('\n').slice(0, 4).join('\n'));
      else original(...args);
    });
  });
  afterAll(async () => {
    spy?.mockRestore();
    await ts?.close();
  });
  return {
    server: () => ts,
    app: () => ts.server.app,
    uncaught,
    async send(label, method, url, body, contentType) {
      const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      const r = await ts.server.app.inject({ method: method as 'POST', url, payload, headers: { 'content-type': contentType } });
      return { label, status: r.statusCode, body: r.body };
    },
  };
}

/** Asserts the fuzz invariants over a batch of outcomes, naming the first offenders. */
export function expectNoServerFaults(outcomes: readonly Outcome[], uncaught: readonly string[]): void {
  const bad = outcomes.filter((o) => (o.status >= 500 && !isKubesOwn5xx(o)) || (o.status >= 400 && !/"kind":"Status"/.test(o.body)));
  expect(bad.slice(0, 5).map((o) => `${o.label} -> ${o.status} ${o.body.slice(0, 300)}`)).toEqual([]);
  expect(uncaught.slice(0, 3)).toEqual([]);
}
