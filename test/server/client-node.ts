/**
 * The setup of the tests that drive the server through `@kubernetes/client-node`: a test server
 * started before the file's tests and closed after them, and a KubeConfig for its admin (read from
 * the kubeconfig the server wrote, as a user's program would).
 */
import { afterAll, beforeAll } from 'vitest';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './harness.ts';

export interface ClientNodeServer {
  /** Set once the file's beforeAll ran. */
  readonly t: TestServer;
  readonly kc: k8s.KubeConfig;
}

/** Registers the server's start and stop around the calling test file; read the fields inside tests. */
export function clientNodeServer(opts: Parameters<typeof startTestServer>[0] = {}): ClientNodeServer {
  const env = {} as { t: TestServer; kc: k8s.KubeConfig };
  beforeAll(async () => {
    env.t = await startTestServer(opts);
    env.kc = new k8s.KubeConfig();
    env.kc.loadFromFile(env.t.server.kubeconfigPath);
  }, 60_000);
  afterAll(async () => {
    await env.t?.close();
  });
  return env;
}
