// Differential test against kube-apiserver v1.32.4's CEL (expectations produced by the Go program in
// test/cel/go-reference over corpus.jsonl; regenerate with test/cel/differential/regenerate.sh).
// Every corpus entry must agree on error phase, value, cost-limit outcome, runtime cost, the static
// estimate and the error texts (evaluation errors, and compile errors in cel-go's display form),
// except the aspects listed in known-disagreements.json (each with a reason). The
// list may only shrink: an entry that now agrees fails the test until it is removed.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadCorpus, runOurs, disagreements, type Aspect } from './harness.ts';

const known = JSON.parse(readFileSync(new URL('./known-disagreements.json', import.meta.url), 'utf8')) as Record<string, { aspects: Aspect[]; reason: string }>;
const { corpus, expected } = loadCorpus();

describe('CEL agrees with kube-apiserver v1.32.4', () => {
  it('has a corpus of at least 1,500 expressions, each with an expectation', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1500);
    for (const e of corpus) expect(expected.has(e.id), e.id).toBe(true);
  });

  it('lists every known disagreement with a reason', () => {
    for (const [id, k] of Object.entries(known)) {
      expect(k.reason.length, id).toBeGreaterThan(10);
      expect(k.aspects.length, id).toBeGreaterThan(0);
    }
  });

  it('agrees on every aspect not listed as a known disagreement, and every listed one still disagrees', () => {
    const unexpected: string[] = [];
    const fixed: string[] = [];
    for (const e of corpus) {
      const got = runOurs(e);
      const exp = expected.get(e.id);
      if (exp === undefined) continue;
      const d = new Set(disagreements(exp, got));
      const listed = new Set(known[e.id]?.aspects ?? []);
      for (const a of d) if (!listed.has(a)) unexpected.push(`${e.id} ${a}: ${e.expr.slice(0, 80)} | go ${JSON.stringify({ ...exp, id: undefined }).slice(0, 160)} | ours ${JSON.stringify({ ...got, id: undefined }).slice(0, 160)}`);
      for (const a of listed) if (!d.has(a)) fixed.push(`${e.id} ${a} now agrees: remove it from known-disagreements.json`);
    }
    expect(unexpected.slice(0, 20)).toEqual([]);
    expect(fixed.slice(0, 20)).toEqual([]);
    // Compiling and running ~7,800 programs takes 15 s alone and much longer on a loaded machine.
  }, 180_000);
});
