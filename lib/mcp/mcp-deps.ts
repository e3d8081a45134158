import type { Logger } from "@runifold/sdk";
import type postgres from "postgres";
import type { Principal } from "../auth";
import type { PrefetchedSession, PrefetchedTask, PrefetchedTool } from "./auth-gate";
import type { CredentialLimits } from "./credential-budgets";
import type { LegacySession } from "./legacy/session-record";

/** What the protocol layer needs from the process: passed in, never imported as singletons. */
export type McpDeps = {
  sql: postgres.Sql;
  logger: Logger;
  /** Re-checks the caller's credential (listen streams re-authorize at every snapshot). */
  reauthorize: () => Promise<Principal | undefined>;
  /** OAuth on: named in insufficient_scope challenges too (MCP 2025-11-25 "Runtime Insufficient Scope Errors"). */
  resourceMetadataUrl?: string;
  /** Live tasks one credential may have at once (RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY); default DEFAULT_MAX_ACTIVE_TASKS_PER_KEY. */
  maxActiveTasksPerKey?: number;
  /** Per-credential stream, wait and creation budgets of this process (credential-budgets.ts); default: the process's, at the defaults. */
  limits?: CredentialLimits;
  /** RUNIFOLD_PUBLIC_URL: where the console's question pages are, for URL-mode input (url-input.ts); none, none sent. */
  publicUrl?: string;
};

export type McpCall = {
  principal: Principal;
  request: Request;
  signal: AbortSignal;
  /** A task the auth gate read together with the credential (auth-gate.ts: tasks/get of either era). */
  prefetchedTask?: PrefetchedTask;
  /** A tool's route and the credential's cap check, read together with the credential (modern tools/call). */
  prefetchedTool?: PrefetchedTool;
  /** The legacy session the gate read together with the credential (legacy/read-ahead.ts), for attachSession. */
  prefetchedSession?: PrefetchedSession;
  /** The legacy session the request named (Mcp-Session-Id), when it named one; never on the modern leg. */
  session?: LegacySession;
};
