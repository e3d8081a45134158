// lib/admin: tenants, operators, memberships, API keys and routes — one service layer for the
// console (lib/ui/actions), the CLI (cli/commands/admin) and the demo seed (workflows/demo/seed.ts).
// Each operation is a zod schema plus a function taking { sql, actor } that validates, maps a
// duplicate to a conflict, audits and returns.
export type { AdminActor, AdminContext } from "./actor";
export { actorLabel, SEED_ACTOR } from "./actor";
export type { CreatedKey } from "./api-keys";
export { createKey, revokeKey, revokeKeyAsAdmin, ZCreateKey, ZRevokeKey, ZRevokeKeyAsAdmin } from "./api-keys";
export { rotateApprovalKey } from "./approval-keys";
export type { AuditContext, AuditFields } from "./audit";
export { audit } from "./audit";
export type { AuditEntry } from "./audit-log";
export { listAudit, ZListAudit } from "./audit-log";
export { purgeAuditTrail } from "./audit-retention";
export type { AuditFilters, AuditPage, AuditRecord } from "./audit-search";
export { decodeAuditCursor, encodeAuditCursor, iterateAudit, searchAudit, ZAuditSearch } from "./audit-search";
export type { BulkTaskResult } from "./bulk-tasks";
export { BULK_TASK_LIMIT, bulkTaskAction, ZBulkTasks } from "./bulk-tasks";
export type { DefinitionSummary } from "./definitions";
export { definitionsFromStore, listPublishedDefinitions } from "./definitions";
export { ensureFirstAdmin, FIRST_ADMIN_EMAIL } from "./first-admin";
export { addMember, removeMember, ZAddMember, ZRemoveMember } from "./members";
export { setOperatorGroups, ZSetOperatorGroups } from "./operator-groups";
export { resetOperatorMfa, ZResetOperatorMfa } from "./operator-mfa";
export type { CreatedOperatorToken } from "./operator-tokens";
export { createOperatorToken, revokeOperatorToken, ZCreateOperatorToken, ZRevokeOperatorToken } from "./operator-tokens";
export type { CreatedOperator } from "./operators";
export { createOperator, setOperatorDisabled, ZCreateOperator, ZSetOperatorDisabled } from "./operators";
export { parseInput } from "./parse-input";
export { changeOwnPassword, resetOperatorPassword, ZChangePassword, ZResetPassword } from "./passwords";
export {
  checkSchedule,
  describeSchedule,
  setRouteSchedule,
  setRouteSchedulePaused,
  ZRouteSchedule,
  ZSetRouteSchedule,
  ZSetRouteSchedulePaused,
} from "./route-schedule";
export type { InputSchemaSource, ResolveDefinition, RouteDefinition, RouteDeps, SavedRoute } from "./routes";
export {
  definitionsFromRegistry,
  disableRoute,
  saveRoute,
  toolInputSchema,
  UnpublishedWorkflowError,
  ZDisableRoute,
  ZSaveRoute,
} from "./routes";
export { OPERATOR_ROLES, SLUG_PATTERN, TASK_SUPPORT, TOOL_NAME_PATTERN, WORKFLOW_NAME_PATTERN } from "./rules";
export { signOutEverywhere, ZSignOutEverywhere } from "./sessions";
export { cancelTask, ZCancelTask } from "./task-cancel";
export type { RerunResult } from "./task-rerun";
export { rerunTask, ZRerunTask } from "./task-rerun";
export {
  createTenant,
  setTenantDisabled,
  setTenantHandleTools,
  setTenantMaxConcurrentRuns,
  ZCreateTenant,
  ZSetTenantDisabled,
  ZSetTenantHandleTools,
  ZSetTenantMaxConcurrentRuns,
} from "./tenants";
export type { CreatedWebhook, WebhookPolicy } from "./webhooks";
export {
  createWebhook,
  deleteWebhook,
  resendWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTest,
  setWebhookEnabledState,
  ZCreateWebhook,
  ZSetWebhookEnabled,
  ZWebhookDeliveryRef,
  ZWebhookRef,
} from "./webhooks";
