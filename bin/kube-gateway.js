#!/usr/bin/env node
/**
 * The kube-gateway executable (`npm start`, `npx kube-gateway`, node_modules/.bin/kube-gateway).
 * It runs the compiled server (build/main.js) inside this very process: no loader, no child
 * process, so SIGTERM and SIGINT sent to this process (or forwarded to it by npm) reach the
 * server's own handlers, and it starts in well under a second.
 */
import { ensureBuild } from './build.js';

const error = await ensureBuild();
if (error !== undefined) {
  process.stderr.write(`Error: ${error}\n`);
  process.exit(1);
}
await import('../build/main.js');
