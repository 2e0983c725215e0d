/**
 * The server process (bin/kube-gateway.js runs the compiled form): parse flags, start the server,
 * print how to use it, shut down cleanly on SIGTERM/SIGINT. A start that fails for a reason the
 * user can fix prints one line, `Error: ...`, and exits 1.
 */
import { parseFlags, FlagError } from './server/config.ts';
import { startApiServer } from './server/api-server.ts';
import { StartupError } from './server/startup-error.ts';
import { startIdleMemoryReducer } from './server/idle-memory.ts';

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseFlags(process.argv.slice(2));
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`Error: ${err.message}\nRun with --help for usage.\n`);
      process.exit(2);
    }
    throw err;
  }
  if ('help' in parsed) {
    process.stdout.write(parsed.help);
    return;
  }
  // A stop while the start still waits (for etcd) ends the wait; the start then undoes itself.
  const interrupt = new AbortController();
  const starting = startApiServer({ config: parsed, logger: true, signal: interrupt.signal });
  // Handlers go in before the server can answer anything: a client may see it up (the kubeconfig
  // of an earlier run on the same port works at once) and stop it while start is still finishing.
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${reason}: shutting down\n`);
    interrupt.abort();
    starting.then(
      (server) =>
        server.shutdown().then(
          () => process.exit(0),
          (err) => {
            process.stderr.write(`shutdown failed: ${String(err)}\n`);
            process.exit(1);
          },
        ),
      // A start that failed or was interrupted is handled below.
      () => {},
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM received'));
  process.on('SIGINT', () => stop('SIGINT received'));
  stopWithNpm(stop);

  let server;
  try {
    server = await starting;
  } catch (err) {
    if (stopping) process.exit(0);
    if (err instanceof StartupError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  if (stopping) return;
  process.stdout.write(`API server listening on ${server.url} (storage: ${parsed.storageBackend}, data: ${server.dataDir})\n`);
  process.stdout.write(`export KUBECONFIG=${server.kubeconfigPath}\n`);
  startIdleMemoryReducer();
}

/**
 * Under npm, npm's death is the server's. npm forwards SIGTERM and SIGINT to its child, and
 * `npm start` execs this process, so it gets them; but `npx kube-gateway` runs it under `sh -c`,
 * and the shell dies of the signal without passing it on, leaving this process orphaned and still
 * listening. Being reparented while started by npm means npm is gone: stop as on SIGTERM. Started
 * any other way (a shell script's `&`, a service manager), a parent's exit is no reason to stop.
 */
function stopWithNpm(stop: (reason: string) => void): void {
  if (process.env.npm_command === undefined) return;
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) stop('npm exited');
  }, 250).unref();
}

// A bug must never take the server down silently mid-request: log and keep serving.
process.on('unhandledRejection', (err) => {
  process.stderr.write(`unhandled rejection: ${err instanceof Error ? err.stack : String(err)}\n`);
});

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
