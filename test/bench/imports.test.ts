/**
 * Benchmarks run under tsx, not vitest, and share fixtures with the tests: no test module a
 * benchmark imports, directly or through other relative imports, may import vitest (it throws
 * "Vitest failed to access its internal state" outside a test run).
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const relativeImports = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+\.ts)'/g)].map((m) => resolve(dirname(file), m[1]!));

function benchFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? benchFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('benchmark imports', () => {
  it('reach no module that imports vitest', () => {
    const testDir = join(root, 'test');
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (file: string, via: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      if (/from\s+'vitest'/.test(readFileSync(file, 'utf8'))) offenders.push(`${file.slice(root.length + 1)} (from ${via})`);
      for (const dep of relativeImports(file)) if (dep.startsWith(testDir)) visit(dep, file.slice(root.length + 1));
    };
    const benches = benchFiles(join(root, 'bench'));
    for (const bench of benches) for (const dep of relativeImports(bench)) if (dep.startsWith(testDir)) visit(dep, bench.slice(root.length + 1));
    // The check has something to check: benchmarks do share test fixtures.
    expect(seen.size).toBeGreaterThan(3);
    expect(offenders).toEqual([]);
  });
});
