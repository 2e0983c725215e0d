#!/usr/bin/env node
/**
 * The ahead-of-time build: compiles src/ with tsconfig.build.json into build/, plain JavaScript
 * that Node runs without a TypeScript loader (a loader costs about half a second at every start).
 *
 * `npm install` runs this file (the prepare script); bin/kube-gateway.js calls ensureBuild() at
 * every start and rebuilds only when a file under src/ is newer than the last successful build,
 * so an edited checkout never runs stale code. Checking costs one stat per source file.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const buildDir = join(root, 'build');
/** Written after a successful build; holds the newest source mtime that build saw. */
const stampPath = join(buildDir, '.built');
const inputs = ['src', 'tsconfig.json', 'tsconfig.build.json'];

/** The newest modification time among the build's inputs, in milliseconds. */
function newestInputMtime() {
  let newest = 0;
  const visit = (path) => {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st === undefined) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (st.mtimeMs > newest) {
      newest = st.mtimeMs;
    }
  };
  for (const input of inputs) visit(join(root, input));
  return newest;
}

/** True when build/ holds the output of the current sources. */
export function buildIsCurrent() {
  let stamp;
  try {
    stamp = Number(readFileSync(stampPath, 'utf8'));
  } catch {
    return false;
  }
  return Number.isFinite(stamp) && newestInputMtime() <= stamp;
}

/**
 * Compiles src/ into build/. tsc's own output goes to stderr, so a server started after a rebuild
 * prints on stdout only what it always prints. Returns an error message, or undefined on success.
 */
export function build() {
  // Taken before compiling: a file edited while tsc runs is newer than the stamp, so it is rebuilt next time.
  const seen = newestInputMtime();
  let tsc;
  try {
    tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    return 'the TypeScript compiler is not installed; run `npm install` in ' + root;
  }
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.error) return `could not run the TypeScript compiler: ${result.error.message}`;
  if (result.status !== 0) return 'src/ does not compile (errors above); fix them, `npm run typecheck` shows them too';
  writeFileSync(stampPath, String(seen));
  return undefined;
}

/** Builds when build/ is missing or older than src/; returns an error message, or undefined when build/ is current. */
export function ensureBuild() {
  if (buildIsCurrent()) return undefined;
  return build();
}

// Run as a script (`npm run build`, npm install's prepare): always compile.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const error = build();
  if (error !== undefined) {
    process.stderr.write(`Error: ${error}\n`);
    process.exit(1);
  }
}
