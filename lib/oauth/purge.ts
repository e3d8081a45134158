import type { SqlHandle } from "../../db/client";
import { purgeExpiredAuthorizationCodes } from "../../db/queries/oauth-codes";
import { purgeExpiredTokens } from "../../db/queries/oauth-tokens";

/**
 * Removes codes and tokens that expired more than a day ago (the tables stay bounded; a day of
 * used refresh tokens is kept so a late replay is still detected as reuse). Meant for a periodic
 * pass such as the retention timer.
 */
export async function purgeExpiredOAuthState(sql: SqlHandle): Promise<{ codes: number; tokens: number }> {
  return { codes: await purgeExpiredAuthorizationCodes(sql), tokens: await purgeExpiredTokens(sql) };
}
