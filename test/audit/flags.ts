/** The audit flags with kube's defaults, for tests to override. */
import type { AuditFlags } from '../../src/audit/flags.ts';

export function auditFlags(extra: Partial<AuditFlags>): AuditFlags {
  return {
    logMaxAgeDays: 0,
    logMaxBackups: 0,
    logMaxSizeMB: 0,
    logBufferSize: 10_000,
    webhookBatchBufferSize: 10_000,
    webhookBatchMaxSize: 400,
    webhookBatchMaxWaitMs: 30_000,
    webhookBatchThrottleQps: 10,
    webhookBatchThrottleBurst: 15,
    webhookInitialBackoffMs: 10_000,
    ...extra,
  };
}
