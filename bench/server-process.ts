/**
 * A benchmark's server in a process of its own (bench/api-server-child.ts), so that what the
 * server costs is measured apart from the load generator: JSON requests over one keep-alive
 * agent, and the server process's CPU time. A narrow face over the shared scaffolding in
 * bench/lib/driver.ts.
 */
import { forkServer, httpsClient } from './lib/driver.ts';

export interface ServerProcess {
  request(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
  /** The server process's CPU time so far (user + system, all threads), in microseconds. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the server; `execArgv` adds Node options (a CPU profile: `--cpu-prof`). */
export async function startServerProcess(execArgv: readonly string[] = []): Promise<ServerProcess> {
  const server = await forkServer(new URL('./api-server-child.ts', import.meta.url), { execArgv: ['--expose-gc', ...execArgv] });
  const client = httpsClient(server.ready);
  return {
    request: client.request,
    cpuMicros: server.cpu,
    stop: async () => {
      client.close();
      await server.stop();
    },
  };
}
