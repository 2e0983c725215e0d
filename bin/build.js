#!/usr/bin/env node
/**
 * The ahead-of-time build: bundles src/ (from src/main.ts, plus its worker threads) with
 * esbuild into build/, plain JavaScript that Node runs without a TypeScript loader. One bundle
 * instead of ~600 module files halves the CPU a start spends loading code (about 0.17 s against
 * 0.34 s for tsc's file-per-module output) and saves about 10 MB of RSS. esbuild is also what
 * tsx and vitest run the sources through, so the shipped code is transformed as the tested code
 * is; types are checked by `npm run typecheck`, not here.
 *
 * `npm install` runs this file (the prepare script); bin/kube-gateway.js calls ensureBuild() at
 * every start and rebuilds only when a file under src/ is newer than the last successful build,
 * so an edited checkout never runs stale code. Checking costs one stat per source file; a
 * rebuild, about a second.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const buildDir = join(root, 'build');
/** Written after a successful build; holds the newest source mtime that build saw. */
const stampPath = join(buildDir, '.built');
const inputs = ['src', 'tsconfig.json', 'package-lock.json', 'bin/build.js'];

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
 * Bundles src/ into build/. Returns an error message, or undefined on success. Packages stay
 * bundled except those that find files of their own at run time: better-sqlite3 (a native addon)
 * and etcd3 (loaded only with --etcd-servers).
 */
export async function build() {
  // Taken before building: a file edited meanwhile is newer than the stamp, so it is rebuilt next time.
  const seen = newestInputMtime();
  let esbuild;
  try {
    esbuild = await import(createRequire(join(root, 'package.json')).resolve('esbuild'));
  } catch {
    return 'esbuild is not installed; run `npm install` in ' + root;
  }
  // The server is one CommonJS script (bin/kube-gateway.js compiles it with V8's code cache, which
  // Node 20 offers only for scripts, not for ES modules); the worker threads stay ES modules.
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    // No keepNames: it wraps every function in __name(), which redefines `name` and so turns each
    // closure made per request into a dictionary-mode object (about 300 bytes and a slower call
    // each; a watch made 20 of them). Without minification esbuild only renames a symbol where two
    // modules' top-level names collide (`foo2`), which only shows in stack traces.
    // V8 keeps the source of every loaded script in memory for lazy compilation: whitespace and
    // comments cost resident memory (about 1 MB). Identifiers stay, so stack traces still read.
    minifyWhitespace: true,
    // Licence comments go to main.cjs.LEGAL.txt and the like: they are not code, and one
    // non-ASCII character in a script makes V8 hold all of its source as two-byte text.
    legalComments: 'external',
    // Fastify's schema compilers (ajv, fast-json-stringify: about 400 KB of source that V8 would
    // keep in memory) are required only when a route declares a schema, and none does
    // (src/server/app.ts sets compilers that refuse): left to node_modules, they never load.
    external: ['better-sqlite3', 'etcd3', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
    logLevel: 'error',
    metafile: true,
  };
  let results;
  try {
    results = await Promise.all([
      esbuild.build({
        ...common,
        entryPoints: ['src/main.ts'],
        outfile: join(buildDir, 'main.cjs'),
        format: 'cjs',
        // The sources locate their worker threads' scripts beside themselves, by import.meta.url.
        define: { 'import.meta.url': '__kubeGatewayModuleUrl' },
        banner: { js: "var __kubeGatewayModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
      }),
      esbuild.build({
        ...common,
        entryPoints: ['src/codec/yaml-decode-worker.ts', 'src/storage/sqlite-writer-worker.ts'],
        outdir: buildDir,
        // Flat: the chunks the two workers share sit beside them.
        entryNames: '[name]',
        chunkNames: '[name]-[hash]',
        splitting: true,
        format: 'esm',
        // CommonJS packages inside an ES module bundle still call require().
        banner: { js: "import { createRequire as __kubeGatewayRequire } from 'node:module'; const require = __kubeGatewayRequire(import.meta.url);" },
      }),
    ]);
  } catch {
    return 'src/ does not build (errors above); fix them, `npm run typecheck` shows type errors too';
  }
  const outputs = results.flatMap((r) => Object.keys(r.metafile.outputs)).map((o) => join(root, o));
  asciiOnly(outputs.filter((o) => o.endsWith('.js') || o.endsWith('.cjs')));
  writeFileSync(stampPath, String(seen));
  pruneOldChunks(new Set(outputs));
  return undefined;
}

/**
 * Rewrites every non-ASCII character of the outputs as a \u escape. esbuild escapes strings but
 * not regular expression literals (a dependency's /µs/ stays), and one such character makes V8
 * keep the whole script's source as two-byte text: 1.7 MB more for the server's script. Inside literals and
 * identifiers the escape means the same character; comments are gone (minified) or external.
 */
function asciiOnly(files) {
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (!/[^\x00-\x7f]/.test(text)) continue;
    writeFileSync(file, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  }
}

/**
 * Removes earlier builds' chunks and code caches. Not at once: a server started from the previous
 * build may still load one of its workers' chunks, which it does within its first minutes.
 */
function pruneOldChunks(current) {
  const cutoff = Date.now() - 60 * 60_000;
  for (const name of readdirSync(buildDir)) {
    const path = join(buildDir, name);
    // Scripts, and code caches (bin/kube-gateway.js names them by the script's hash).
    if (!/\.(js|cjs|v8cache)$/.test(name) || current.has(path)) continue;
    const st = statSync(path, { throwIfNoEntry: false });
    if (st !== undefined && st.mtimeMs < cutoff) rmSync(path, { force: true });
  }
}

/** Builds when build/ is missing or older than src/; resolves to an error message, or undefined when build/ is current. */
export async function ensureBuild() {
  if (buildIsCurrent()) return undefined;
  return build();
}

// Run as a script (`npm run build`, npm install's prepare): always compile.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const error = await build();
  if (error !== undefined) {
    process.stderr.write(`Error: ${error}\n`);
    process.exit(1);
  }
}
