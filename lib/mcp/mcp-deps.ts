import type { Logger } from "@runifold/sdk";
import type postgres from "postgres";
import type { Principal } from "../auth";

/** What the protocol layer needs from the process: passed in, never imported as singletons. */
export type McpDeps = {
  sql: postgres.Sql;
  logger: Logger;
  /** Re-checks the caller's credential (listen streams re-authorize at every snapshot). */
  reauthorize: () => Promise<Principal | undefined>;
};

export type McpCall = { principal: Principal; request: Request; signal: AbortSignal };
