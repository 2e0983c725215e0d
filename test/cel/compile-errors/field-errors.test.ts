/**
 * A CRD rule or a ValidatingAdmissionPolicy expression that does not compile is refused with
 * cel-go's error text inside kube's field error. Each case of cases.ts was sent to kube-apiserver
 * v1.32.4 (dry run, record.ts) and its answer recorded in recorded.json; the gateway must answer
 * with the same status and the whole message, cel-go's text included, character for character.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../../server/harness.ts';
import { CASES } from './cases.ts';

interface Recorded {
  readonly name: string;
  readonly code: number;
  readonly message: string;
}

const recorded = new Map((JSON.parse(readFileSync(new URL('./recorded.json', import.meta.url), 'utf8')) as Recorded[]).map((r) => [r.name, r]));
/**
 * Cases the gateway still answers differently, with the reason; each must keep differing (the list
 * only shrinks).
 */
const KNOWN_DIFFERENCES: Readonly<Record<string, string>> = {};
/** Go pointer addresses kube prints in `%#v` of a ValidationRule. */
const mask = (m: string): string => m.replace(/0x[0-9a-f]+/g, '0xPTR');

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('CEL compile errors in field errors (kube-apiserver answers)', () => {
  it('has a recorded answer for every case, most of them refusals', () => {
    for (const c of CASES) expect(recorded.has(c.name), c.name).toBe(true);
    expect([...recorded.values()].filter((r) => r.code === 422).length).toBeGreaterThanOrEqual(40);
  });
  for (const c of CASES) {
    it(c.name, async () => {
      const want = recorded.get(c.name) as Recorded;
      const res = await t.request('POST', `${c.path}?dryRun=All`, { body: c.body });
      if (KNOWN_DIFFERENCES[c.name] !== undefined) {
        expect(res.status !== want.code || mask(String(res.json.message)) !== mask(want.message), `${c.name} now agrees: remove it from KNOWN_DIFFERENCES`).toBe(true);
        return;
      }
      expect(res.status).toBe(want.code);
      if (want.code !== 422) return;
      expect(mask(String(res.json.message))).toBe(mask(want.message));
    });
  }
});
