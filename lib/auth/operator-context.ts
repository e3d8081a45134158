import type { SqlHandle } from "../../db/client";

/**
 * What an operator-facing loader, route handler or server action needs from its request: the
 * database, the verified session's operator id, and the request headers (for the same-origin check
 * on mutations). Passed explicitly so tests can call the real functions without a Next request.
 */
export type OperatorContext = {
  sql: SqlHandle;
  sessionOperatorId(): Promise<string | null>;
  requestHeaders(): Promise<Headers>;
  /** Origins allowed besides the request's own host (RUNIFOLD_PUBLIC_URL, RUNIFOLD_ALLOWED_ORIGINS). */
  trustedOrigins?: string[];
};
