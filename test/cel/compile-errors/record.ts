// Records kube-apiserver v1.32.4's answers to cases.ts (dry-run creates) into recorded.json.
// Run against a reference started with parity/reference.sh (its env file gives the URL and token):
//   source /tmp/kube-ref/env && npx tsx test/cel/compile-errors/record.ts
import { request } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { CASES } from './cases.ts';

const url = new URL(process.env.REF_URL ?? '');
const ca = readFileSync(process.env.REF_CA ?? '');

function post(path: string, body: unknown): Promise<{ code: number; message: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: `${path}?dryRun=All`, method: 'POST', ca, headers: { authorization: `Bearer ${process.env.REF_TOKEN}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, message: (JSON.parse(text) as { message?: string }).message ?? '' }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const out: Array<{ name: string; code: number; message: string }> = [];
for (const c of CASES) out.push({ name: c.name, ...(await post(c.path, c.body)) });
writeFileSync(new URL('./recorded.json', import.meta.url), `${JSON.stringify(out, null, 1)}\n`);
console.log(`recorded ${out.length} answers`);
