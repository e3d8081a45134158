export { atActiveTaskCap, DEFAULT_MAX_ACTIVE_TASKS_PER_KEY } from "./active-task-cap";
export { approvalKeyOf, presentApprovalToCaller } from "./approval-view";
export { createTaskFromRoute } from "./create-task";
export type { LookupContext } from "./denied-lookup-audit";
export { settleRefusedLookups } from "./denied-lookup-audit";
export type { Diagnosis } from "./diagnose-task";
export { diagnoseTask } from "./diagnose-task";
export { FollowedProbe } from "./followed-probe";
export type { FilterClause, ParsedFilter } from "./input-filter";
export { parseInputFilter } from "./input-filter";
export { type ChildLinks, readChildLinks } from "./queries/child-links";
export { readApiKeyWithRoute } from "./queries/key-and-route";
export { readApiKeyWithTask } from "./queries/key-and-task";
export { readApiKeyWithSession, type SessionAhead } from "./queries/key-session-task";
export type { TaskListPosition } from "./queries/key-task-list";
export { listKeyTasks } from "./queries/key-task-list";
export type { MetricsSnapshot } from "./queries/metrics-snapshot";
export { readMetricsSnapshot } from "./queries/metrics-snapshot";
export type { TaskListFilters, TaskListRow } from "./queries/operator-task-list";
export { FAILURE_PREVIEW_CHARS, idPrefixRange, listTaskPage } from "./queries/operator-task-list";
export { countActiveByStatus, countFinishedSince, listRecentFailures, tasksPerMinute } from "./queries/overview";
export { readDiagnosis } from "./queries/read-diagnosis";
export type { RerunLinks } from "./queries/rerun-links";
export { readRerunLinks } from "./queries/rerun-links";
export type { TombstoneDetail } from "./queries/retention-views";
export {
  findTombstoneInTenants,
  listRetentionRuns,
  listRetentionRunsForTenants,
  listTombstones,
  listTombstonesInTenants,
  readRetentionFence,
  readRetentionSettings,
  readTombstone,
} from "./queries/retention-views";
export type { RunEventRow } from "./queries/task-detail";
export { findPendingInput, findTaskDetail, findTaskTenant, listInbox, listTaskEvents } from "./queries/task-detail";
export type { TaskRecord } from "./queries/task-record";
export { readTaskHandle, readTaskRecord } from "./queries/task-record";
export type { StepRetryRow, TaskStepRow } from "./queries/task-steps";
export { listTaskSteps, readStepOutput } from "./queries/task-steps";
export { listOnlineWorkers, ONLINE_WORKER_SQL } from "./queries/workers";
export type { RerunOutcome } from "./rerun-task";
export { RERUN_AS_EVENT, RERUN_OF_EVENT, rerunTaskInScope } from "./rerun-task";
export { isSignalName, SIGNAL_NAME_PATTERN, SIGNAL_PAYLOAD_MAX_BYTES } from "./signal-rules";
export type { SignalTaskResult } from "./signal-task";
export { signalTaskByHandle } from "./signal-task";
export type { Era, TaskStatus } from "./status-mapping";
export { isTerminalTaskStatus, taskStatus } from "./status-mapping";
export { statusMessageOf, utcTime } from "./status-message";
export type { AnswerOutcome } from "./task-actions";
export { answerPendingInput, answerTaskByHandle, cancelTaskByHandle, cancelTaskInScope } from "./task-actions";
export type { TaskBinding } from "./task-binding";
export { bindTaskHandle, presentBoundTask, readBoundTaskHandle } from "./task-binding";
export { getTaskFeed } from "./task-feed";
export type { ArgumentCheck } from "./validate-arguments";
export { validateArguments } from "./validate-arguments";
export type { AnswerCheck } from "./validate-input-response";
export { validateInputResponse } from "./validate-input-response";
export { waitForTask } from "./wait-for-task";
