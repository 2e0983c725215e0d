/**
 * The kubectl releases installed beside the default one (v1.27 to v1.33), each doing the everyday
 * loop against one server: create a namespace, apply, get as table and JSON, server-side apply,
 * discovery, delete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startTestServer, writeTemp, type TestServer } from '../server/harness.ts';

const kubectlDir = dirname(realpathSync(execFileSync('which', ['kubectl']).toString().trim()));
const versions = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.32', '1.33'].filter((v) => existsSync(join(kubectlDir, `kubectl.${v}`)));
// The default kubectl always runs, so the suite tests something on machines without the extra releases.
const binaries = versions.length > 0 ? versions.map((v) => ({ v, bin: join(kubectlDir, `kubectl.${v}`) })) : [{ v: 'default', bin: 'kubectl' }];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

describe.each(binaries)('kubectl $v', ({ v, bin }) => {
  const ns = `kv-${v.replace('.', '-')}`;
  const run = async (args: string[]) => {
    const r = await t.kubectl(args, { binary: bin });
    if (r.code !== 0) throw new Error(`kubectl ${v} ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  it('does the everyday loop', async () => {
    expect(await run(['create', 'namespace', ns])).toContain(`namespace/${ns} created`);
    const file = await writeTemp(t.dataDir, `${ns}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: ${ns}\ndata:\n  k: v\n`);
    expect(await run(['apply', '-f', file])).toContain('configmap/cfg created');
    expect(await run(['get', 'cm', '-n', ns])).toMatch(/cfg\s+1\s+/);
    expect(JSON.parse(await run(['get', 'cm', 'cfg', '-n', ns, '-o', 'json'])).data).toEqual({ k: 'v' });
    expect(await run(['apply', '--server-side', '--force-conflicts', '-f', file])).toContain('serverside-applied');
    expect(await run(['api-resources', '--api-group=coordination.k8s.io'])).toContain('leases');
    expect(await run(['delete', 'namespace', ns])).toContain('deleted');
  });
});
