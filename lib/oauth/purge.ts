import type { SqlHandle } from "@runifold/store";
import { purgeAbandonedRegistrations } from "../../db/queries/oauth-clients";
import { purgeExpiredAuthorizationCodes } from "../../db/queries/oauth-codes";
import { purgeExpiredTokens } from "../../db/queries/oauth-tokens";

/**
 * How long a dynamically registered client that nobody ever authorized is kept: an MCP client
 * registers and sends its person to consent within minutes; a week covers one that waits, and
 * bounds what the open registration endpoint can leave behind.
 */
export const ABANDONED_REGISTRATION_MS = 7 * 24 * 60 * 60_000;

/**
 * Removes codes and tokens that expired more than a day ago (the tables stay bounded; a day of
 * used refresh tokens is kept so a late replay is still detected as reuse), and registrations
 * never used within ABANDONED_REGISTRATION_MS. Run by the web process's retention timer
 * (lib/server/retention.ts).
 */
export async function purgeExpiredOAuthState(sql: SqlHandle): Promise<{ codes: number; tokens: number; clients: number }> {
  return {
    codes: await purgeExpiredAuthorizationCodes(sql),
    tokens: await purgeExpiredTokens(sql),
    clients: await purgeAbandonedRegistrations(sql, ABANDONED_REGISTRATION_MS),
  };
}
