export type { AdminApiDeps } from "./admin/context";
export { createAdminApiHandler } from "./admin/handler";
export {
  createApprovalDecisionHandler,
  createApprovalsJwksHandler,
  createApprovalsListHandler,
  type DecisionRouteParams,
} from "./approvals-handler";
export type { VerifyBearer } from "./bearer-auth";
export { bearerVerifier } from "./bearer-auth";
export { type CappedBody, type ParsedJson, parseJsonBody, readCappedBody } from "./read-capped-body";
export type { HttpApiDeps, SignalRouteParams } from "./signal-handler";
export { createSignalHandler } from "./signal-handler";
