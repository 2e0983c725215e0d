/** A test server that audits to a log file under its own temp dir, with the given policy (YAML). */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../server/harness.ts';
import { auditFlags } from './flags.ts';

export interface AuditedServer {
  readonly server: TestServer;
  /** The audit log's path. */
  readonly log: string;
  close(): Promise<void>;
}

export async function startAuditedServer(policyYaml: string, dirPrefix: string): Promise<AuditedServer> {
  const dir = await mkdtemp(join(tmpdir(), dirPrefix));
  const log = join(dir, 'audit.log');
  const policy = join(dir, 'policy.yaml');
  await writeFile(policy, policyYaml);
  const server = await startTestServer({ config: { audit: auditFlags({ policyFile: policy, logPath: log }) } });
  return {
    server,
    log,
    close: async () => {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
