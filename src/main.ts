/**
 * The server process (bin/kube-gateway.js runs the compiled form): parse flags, start the server,
 * print how to use it, shut down cleanly on SIGTERM/SIGINT. A start that fails for a reason the
 * user can fix prints one line, `Error: ...`, and exits 1.
 */
import { parseFlags, FlagError } from './server/config.ts';
import { startApiServer } from './server/api-server.ts';
import { StartupError } from './server/startup-error.ts';

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
  let server;
  try {
    server = await startApiServer({ config: parsed, logger: true });
  } catch (err) {
    if (err instanceof StartupError) {
      process.stderr.write(`Error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  process.stdout.write(`API server listening on ${server.url} (storage: ${parsed.storageBackend}, data: ${parsed.dataDir})\n`);
  process.stdout.write(`export KUBECONFIG=${server.kubeconfigPath}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal} received: shutting down\n`);
    server.shutdown().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

// A bug must never take the server down silently mid-request: log and keep serving.
process.on('unhandledRejection', (err) => {
  process.stderr.write(`unhandled rejection: ${err instanceof Error ? err.stack : String(err)}\n`);
});

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
