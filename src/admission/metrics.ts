/**
 * kube-apiserver's admission metrics (k8s.io/apiserver/pkg/admission/metrics and the validating
 * policy metrics), with kube v1.32's names, help texts, stability levels, labels and buckets:
 *
 * - apiserver_admission_step_admission_duration_seconds{type,operation,rejected}: one admission
 *   phase of one request (`admit` or `validate`) over the whole chain;
 * - apiserver_admission_controller_admission_duration_seconds{name,type,operation,rejected}: one
 *   plugin's call (webhook plugins included, as kube wraps every plugin);
 * - apiserver_admission_webhook_admission_duration_seconds{name,type,operation,rejected} and
 *   apiserver_admission_webhook_request_total{name,type,operation,code,rejected}: one webhook call;
 * - apiserver_admission_webhook_rejection_count{name,type,operation,error_type,rejection_code};
 * - apiserver_admission_webhook_fail_open_count{name,type};
 * - apiserver_validating_admission_policy_check_total and _check_duration_seconds
 *   {policy,policy_binding,error_type,enforcement_action}: each validation that failed or erred.
 *
 * Webhook `type` is `validating` or `admit` (kube's mutating dispatcher reports `admit`).
 * Plugins get the object at construction; it records nothing until the server attaches its
 * registry (before serving), so plugins built for tests without one cost nothing.
 */
import type { Counter, Histogram, HistogramChild, MetricsRegistry } from '../metrics/registry.ts';

/** kube's buckets for the step and controller histograms (5 ms to 2.5 s). */
const ADMISSION_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];
/** kube's buckets for webhook calls (up to 25 s: webhooks time out at 30 s at most). */
const WEBHOOK_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25];
/** kube's buckets for one policy validation expression. */
const POLICY_BUCKETS = [0.0000005, 0.001, 0.01, 0.1, 1.0];

export type WebhookType = 'validating' | 'admit';
/** Why a webhook rejected (kube's WebhookRejectionErrorType). */
export type WebhookRejectionErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';
/** kube's ValidationErrorType of a policy decision. */
export type PolicyErrorType = 'compile_error' | 'invalid_error' | 'out_of_budget' | 'no_error';
export type EnforcementAction = 'allow' | 'deny' | 'warn' | 'audit';

interface Families {
  readonly step: Histogram;
  readonly controller: Histogram;
  readonly webhook: Histogram;
  readonly webhookRequests: Counter;
  readonly webhookRejections: Counter;
  readonly webhookFailOpen: Counter;
  readonly policyChecks: Counter;
  readonly policyLatency: Histogram;
}

const bool = (b: boolean) => (b ? 'true' : 'false');

const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** kube truncates codes above 600 to bound the cardinality. */
const codeLabel = (code: number) => String(Math.min(code, 600));

export class AdmissionMetrics {
  private f: Families | undefined;

  /** Registers the families on the server's registry; recording starts now. Once per registry. */
  attach(registry: MetricsRegistry): void {
    if (this.f) return;
    this.f = {
      step: registry.histogram({
        name: 'apiserver_admission_step_admission_duration_seconds',
        help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
        labels: ['type', 'operation', 'rejected'],
        buckets: ADMISSION_BUCKETS,
        stability: 'STABLE',
      }),
      controller: registry.histogram({
        name: 'apiserver_admission_controller_admission_duration_seconds',
        help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
        labels: ['name', 'type', 'operation', 'rejected'],
        buckets: ADMISSION_BUCKETS,
        stability: 'STABLE',
      }),
      webhook: registry.histogram({
        name: 'apiserver_admission_webhook_admission_duration_seconds',
        help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
        labels: ['name', 'type', 'operation', 'rejected'],
        buckets: WEBHOOK_BUCKETS,
        stability: 'STABLE',
      }),
      webhookRequests: registry.counter({
        name: 'apiserver_admission_webhook_request_total',
        help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
        labels: ['name', 'type', 'operation', 'code', 'rejected'],
      }),
      webhookRejections: registry.counter({
        name: 'apiserver_admission_webhook_rejection_count',
        help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
        labels: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
      }),
      webhookFailOpen: registry.counter({
        name: 'apiserver_admission_webhook_fail_open_count',
        help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
        labels: ['name', 'type'],
      }),
      policyChecks: registry.counter({
        name: 'apiserver_validating_admission_policy_check_total',
        help: 'Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
        labels: ['policy', 'policy_binding', 'error_type', 'enforcement_action'],
        stability: 'BETA',
      }),
      policyLatency: registry.histogram({
        name: 'apiserver_validating_admission_policy_check_duration_seconds',
        help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
        labels: ['policy', 'policy_binding', 'error_type', 'enforcement_action'],
        buckets: POLICY_BUCKETS,
        stability: 'BETA',
      }),
    };
  }

  /** Whether anything is recorded (callers skip taking times when not). */
  get enabled(): boolean {
    return this.f !== undefined;
  }

  observeStep(type: 'admit' | 'validate', operation: string, rejected: boolean, seconds: number): void {
    this.f?.step.labels(type, operation, bool(rejected)).observe(seconds);
  }

  observeController(name: string, type: 'admit' | 'validate', operation: string, rejected: boolean, seconds: number): void {
    const f = this.f;
    if (!f) return;
    // Every write passes each plugin: its accepted series are kept per plugin, by type and
    // operation, rather than looked up through four label levels each time.
    const op = OPERATIONS.indexOf(operation);
    if (rejected || op < 0) return f.controller.labels(name, type, operation, bool(rejected)).observe(seconds);
    let accepted = this.acceptedByPlugin.get(name);
    if (!accepted) this.acceptedByPlugin.set(name, (accepted = []));
    const slot = (type === 'admit' ? 0 : OPERATIONS.length) + op;
    (accepted[slot] ??= f.controller.labels(name, type, operation, 'false')).observe(seconds);
  }

  private readonly acceptedByPlugin = new Map<string, HistogramChild[]>();

  /** One webhook call (kube's ObserveWebhook): `code` is 200 on success, the refusal's or failure's code otherwise, 0 for an internal error. */
  observeWebhook(name: string, type: WebhookType, operation: string, code: number, rejected: boolean, seconds: number): void {
    if (!this.f) return;
    this.f.webhookRequests.labels(name, type, operation, codeLabel(code), bool(rejected)).inc();
    this.f.webhook.labels(name, type, operation, bool(rejected)).observe(seconds);
  }

  observeWebhookRejection(name: string, type: WebhookType, operation: string, errorType: WebhookRejectionErrorType, code: number): void {
    this.f?.webhookRejections.labels(name, type, operation, errorType, codeLabel(code)).inc();
  }

  observeWebhookFailOpen(name: string, type: WebhookType): void {
    this.f?.webhookFailOpen.labels(name, type).inc();
  }

  observePolicyCheck(policy: string, binding: string, errorType: PolicyErrorType, action: EnforcementAction, seconds: number): void {
    if (!this.f) return;
    this.f.policyChecks.labels(policy, binding, errorType, action).inc();
    this.f.policyLatency.labels(policy, binding, errorType, action).observe(seconds);
  }
}
