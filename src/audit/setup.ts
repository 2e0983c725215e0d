/**
 * Builds the server's auditor from the --audit-* flags: the policy (a bad file stops the start,
 * naming the field), the log sink and the webhook sink (its kubeconfig read as kube reads it).
 * Without a policy file, or without a sink, no events are made (as kube-apiserver), but audit IDs are.
 */
import { loadWebhookKubeconfig } from '../authn/webhook-client.ts';
import type { AuditFlags } from './flags.ts';
import { Auditor, type DeprecationFacts } from './index.ts';
import { AuditPolicy } from './policy.ts';
import { LogSink, WebhookSink, type AuditSink } from './sinks.ts';

export class AuditConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuditConfigError';
  }
}

export async function createAuditor(flags: AuditFlags | undefined, deprecation?: DeprecationFacts): Promise<Auditor> {
  if (!flags?.policyFile || (!flags.logPath && !flags.webhookConfigFile)) return new Auditor({ sinks: [], ...(deprecation ? { deprecation } : {}) });
  const policy = AuditPolicy.load(flags.policyFile);
  const sinks: AuditSink[] = [];
  // The sinks report to the auditor, which exists only once they do: a forwarding observer.
  let auditor: Auditor | undefined;
  const observer = { error: (plugin: string, count: number, reason: string) => auditor?.observer.error(plugin, count, reason) };
  if (flags.logPath) {
    try {
      sinks.push(new LogSink({ path: flags.logPath, maxSizeMB: flags.logMaxSizeMB, maxBackups: flags.logMaxBackups, maxAgeDays: flags.logMaxAgeDays, bufferSize: flags.logBufferSize }, observer));
    } catch (err) {
      throw new AuditConfigError(`--audit-log-path: cannot open ${JSON.stringify(flags.logPath)}: ${(err as Error).message}`);
    }
  }
  if (flags.webhookConfigFile) {
    let conn;
    try {
      conn = await loadWebhookKubeconfig(flags.webhookConfigFile);
    } catch (err) {
      throw new AuditConfigError(`--audit-webhook-config-file: ${(err as Error).message}`);
    }
    sinks.push(
      new WebhookSink(
        {
          url: conn.server,
          ...(conn.ca ? { ca: conn.ca } : {}),
          ...(conn.cert && conn.key ? { clientCert: { cert: conn.cert, key: conn.key } } : {}),
          ...(conn.token ? { bearerToken: conn.token } : {}),
          bufferSize: flags.webhookBatchBufferSize,
          maxBatchSize: flags.webhookBatchMaxSize,
          maxBatchWaitMs: flags.webhookBatchMaxWaitMs,
          throttleQps: flags.webhookBatchThrottleQps,
          throttleBurst: flags.webhookBatchThrottleBurst,
          initialBackoffMs: flags.webhookInitialBackoffMs,
        },
        observer,
      ),
    );
  }
  auditor = new Auditor({ policy, sinks, ...(deprecation ? { deprecation } : {}) });
  return auditor;
}
