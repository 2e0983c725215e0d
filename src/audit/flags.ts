/** Audit flags, with kube-apiserver's names and defaults, as src/audit/setup.ts reads them (parsed in src/server/config.ts). */
export interface AuditFlags {
  readonly policyFile?: string;
  /** A file, or `-` for stdout. */
  readonly logPath?: string;
  readonly logMaxAgeDays: number;
  readonly logMaxBackups: number;
  readonly logMaxSizeMB: number;
  readonly logBufferSize: number;
  readonly webhookConfigFile?: string;
  readonly webhookBatchBufferSize: number;
  readonly webhookBatchMaxSize: number;
  readonly webhookBatchMaxWaitMs: number;
  readonly webhookBatchThrottleQps: number;
  readonly webhookBatchThrottleBurst: number;
  readonly webhookInitialBackoffMs: number;
}
