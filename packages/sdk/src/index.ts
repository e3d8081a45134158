export * from "./approvals";
export type { ApprovalOptions, ApprovalResult } from "./approvals/types";
export { CHANNELS, taskIdsOf } from "./channels";
export type { Compensation, Saga, SagaContext } from "./compensation/saga";
export { saga } from "./compensation/saga";
export type { CompletedStep, RunFailure } from "./compensation/types";
export type { ConcurrencyOption, PublishedConcurrency } from "./definitions/concurrency";
export type { PublishedDefinition } from "./definitions/describe";
export { canonicalJson, describeDefinition, toolSchemaOf } from "./definitions/describe";
export type { PublishOptions, PublishOutcome } from "./definitions/publish";
export { DefinitionConflictError, publishDefinitions } from "./definitions/publish";
// .runifold/dev.json: written by a local dev server, read by runifold-worker --dev.
export {
  DEV_DIR,
  DEV_FILE,
  DevFileError,
  type DevFileInfo,
  findDevFile,
  processAlive,
  readDevFile,
  removeDevFile,
  writeDevFile,
} from "./dev/dev-file";
export {
  AttemptEnded,
  ChildWorkflowFailed,
  coerceError,
  InputTimedOut,
  InvalidWorkflowInput,
  isControlFlow,
  LeaseLost,
  NonRetryableError,
  RunSuspended,
  StepTimeout,
  WorkflowFailure,
  WorkflowMisuse,
} from "./errors";
export { DEFAULT_MAX_LOST_ATTEMPTS } from "./executor";
export type { FailureCause, FailureCode } from "./failure-cause";
export type { Limits } from "./limits";
export { DEFAULT_LIMITS } from "./limits";
export type { Logger, LoggerOptions, LogLevel } from "./logger";
export { bindLogger, createLogger, silentLogger } from "./logger";
export { createMailTransport, type MailSettings, mailSettings } from "./mail-transport";
export { type CallerApproval, readCallerApproval } from "./ops/caller-approval";
export type { CancelResult, CancelRunParams } from "./ops/cancel-run";
export { cancelRun, cancelRunAsAdmin, cancelRunForTenant } from "./ops/cancel-run";
export { LEASE_PLAN_SETTINGS } from "./ops/claim-runs";
export type { CreatedRun, CreateRunParams, IdempotencyOptions } from "./ops/create-run";
export { createRun, DEFAULT_IDEMPOTENCY_TTL_MS } from "./ops/create-run";
export {
  type DecideResult,
  type DecidingOperator,
  type DecisionInput,
  decideApproval,
  MAX_COMMENT_CHARS,
  type RefusalCode,
} from "./ops/decide-approval";
export { listApprovals, type OpenApproval } from "./ops/list-approvals";
export { STRANDED_MESSAGE_PREFIX } from "./ops/mark-stranded-runs";
export type { ProvideInputParams, ProvideInputResult } from "./ops/provide-input";
export { provideInput, provideInputAsAdmin, provideInputForTenant } from "./ops/provide-input";
export { readFailureCause } from "./ops/read-failure-cause";
export { readRunHistory } from "./ops/read-run-history";
export { WORKER_ONLINE_WINDOW_MS } from "./ops/register-worker";
export type { SendSignalParams } from "./ops/send-signal";
export { sendSignal, sendSignalAsAdmin, sendSignalForTenant } from "./ops/send-signal";
export type { RunRow, WaitDetail } from "./ops/types";
export { runColumns } from "./ops/types";
export type { RetryPolicy } from "./policy/retry-policy";
export { DEFAULT_RETRY_POLICY } from "./policy/retry-policy";
export type { HistoryOperation, OperationKind, RunHistory } from "./replay/history-format";
export { HISTORY_FORMAT, operationKind } from "./replay/history-format";
export { definitionsOf, loadWorkflowsModule, WorkflowsModuleError } from "./runtime/load-workflows";
export { assertSchemaSupported, KNOWN_MIGRATIONS, readSchemaStatus, SchemaMismatchError } from "./runtime/schema-check";
export type { ServedWorker, ServeOptions } from "./runtime/serve";
export { serveWorkflows } from "./runtime/serve";
export type { RunWorkerOptions } from "./runtime/worker-cli";
export { runWorker, runWorkerCli } from "./runtime/worker-cli";
export type { RunStatus } from "./states";
export { isTerminal, RUN_STATUSES, TERMINAL_STATUSES, TERMINAL_STATUSES_SQL, WAITING_STATUSES } from "./states";
export type { MetricsServer } from "./telemetry/metrics-server";
export { serveMetrics } from "./telemetry/metrics-server";
export type { AttemptOutcome, WorkerObserver } from "./telemetry/observer";
export type { ScrapeVerdict } from "./telemetry/scrape-auth";
export { authorizeScrape, isLoopbackScrape } from "./telemetry/scrape-auth";
export type { Tracing, TracingOptions } from "./telemetry/tracing";
export { startTracing, tracingRequested } from "./telemetry/tracing";
export { createWorkerMetrics } from "./telemetry/worker-metrics";
export type {
  CheckedWebhookUrl,
  HostLookup,
  SignedHeaders,
  WebhookDeliveryConfig,
  WebhookEvent,
  WebhookPayload,
  WebhookRetry,
  WebhookUrlPolicy,
} from "./webhooks";
export {
  checkWebhookUrl,
  createWebhookDeliveryWorkflow,
  createWebhookDeliveryWorkflows,
  DEFAULT_WEBHOOK_RETRY,
  generateWebhookSecret,
  isLoopbackAddress,
  isPublicAddress,
  isWebhookEvent,
  MAX_WEBHOOK_URL_LENGTH,
  openWebhookSecret,
  sealedKeyTag,
  sealWebhookSecret,
  signWebhook,
  WEBHOOK_DELIVERY_WORKFLOW,
  WEBHOOK_EVENTS,
  WEBHOOK_TEST_EVENT,
  webhookDeliveryWorkflowName,
  webhookKeyMaterial,
  webhookKeyTag,
} from "./webhooks";
export type { Worker, WorkerOptions } from "./worker";
export { createWorker } from "./worker";
export type {
  AnyWorkflow,
  ChildHandle,
  ChildOptions,
  ChildWorkflowRef,
  FailureContext,
  InputRequest,
  InputResponse,
  InputTimeout,
  StepOptions,
  StepScope,
  WorkflowAsks,
  WorkflowContext,
  WorkflowRegistry,
  WorkflowResult,
} from "./workflow";
export { createRegistry, defineWorkflow } from "./workflow";
