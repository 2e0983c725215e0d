/**
 * Runs the server's compiled script (build/main.cjs) with V8's code cache. Compiling the 2 MB
 * script, and then each function the start calls, is a fifth of a start's CPU; a code cache made
 * by an earlier start holds all of that already compiled. Node 20 caches code for scripts only
 * (module.enableCompileCache, for ES modules, arrived in Node 22), hence a CommonJS script run
 * through vm.Script here, as Node itself runs one.
 *
 * The cache is made once the server has been up for a moment (so it holds what a start and the
 * first requests compile), written beside the script under the script's content hash, so a
 * rebuilt script never meets an older script's cache; V8 itself refuses a cache made by another
 * V8 version or with other flags, and then a new one is written. A build dir that cannot be
 * written (an installed package, a read-only image) only means no cache.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Module, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** How long after the start the cache is made: the start itself and the first requests are in it. */
const CACHE_AFTER_MS = 2000;

export function runCompiledServer(buildDir) {
  const file = join(buildDir, 'main.cjs');
  const source = readFileSync(file, 'utf8');
  const cacheFile = join(buildDir, `main.${createHash('sha256').update(source).digest('hex').slice(0, 16)}.v8cache`);
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  const mod = new Module(file);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(dirname(file));
  if (cachedData === undefined || script.cachedDataRejected) {
    setTimeout(() => writeCache(script, cacheFile), CACHE_AFTER_MS).unref();
  }
  script.runInThisContext().call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
}

function writeCache(script, cacheFile) {
  try {
    // Whole or not at all: other starts may be reading it.
    const partial = `${cacheFile}.${process.pid}`;
    writeFileSync(partial, script.createCachedData());
    renameSync(partial, cacheFile);
  } catch {
    // Not writable here: every start compiles.
  }
}
