import { createLogger } from "@runifold/sdk";
import { readEnv } from "../env";
import {
  bearerVerifier,
  createApprovalDecisionHandler,
  createApprovalsJwksHandler,
  createApprovalsListHandler,
  type DecisionRouteParams,
} from "../http-api";
import { getSql } from "./db";
import { webOAuthConfig } from "./oauth-config";

/** The web process's approval endpoints (docs/approvals.md): lib/http-api's handlers bound to this process. */
function deps() {
  return {
    sql: getSql,
    logger: createLogger("http-api", readEnv().RUNIFOLD_LOG_LEVEL),
    verifyBearer: bearerVerifier(webOAuthConfig()),
  };
}

export function createWebApprovalsListHandler(): (request: Request) => Promise<Response> {
  return createApprovalsListHandler(deps());
}

export function createWebApprovalDecisionHandler(): (request: Request, params: DecisionRouteParams) => Promise<Response> {
  return createApprovalDecisionHandler(deps());
}

export function createWebApprovalsJwksHandler(): () => Promise<Response> {
  return createApprovalsJwksHandler(deps());
}
