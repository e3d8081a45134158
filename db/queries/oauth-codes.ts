import type { SqlHandle } from "@runifold/store";

export type AuthorizationCodeRow = {
  code_sha256: string;
  client_id: string;
  operator_id: string;
  tenant_id: string;
  scopes: string[];
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  actor: string;
  used_at: Date | null;
  grant_id: string | null;
  /** Computed with the database's clock. */
  expired: boolean;
};

export async function insertAuthorizationCode(
  sql: SqlHandle,
  code: {
    codeSha256: string;
    clientId: string;
    operatorId: string;
    tenantId: string;
    scopes: string[];
    redirectUri: string;
    codeChallenge: string;
    resource: string;
    actor: string;
    ttlS: number;
  },
): Promise<void> {
  await sql.unsafe(
    `INSERT INTO oauth_authorization_codes
       (code_sha256, client_id, operator_id, tenant_id, scopes, redirect_uri, code_challenge, resource, actor, expires_at)
     VALUES ($1, $2, $3::uuid, $4::uuid, $5::text[], $6, $7, $8, $9, now() + $10 * interval '1 second')`,
    [
      code.codeSha256,
      code.clientId,
      code.operatorId,
      code.tenantId,
      code.scopes,
      code.redirectUri,
      code.codeChallenge,
      code.resource,
      code.actor,
      code.ttlS,
    ],
  );
}

/**
 * Takes the code's row lock and marks it used in one statement, returning the row as it was
 * before (so `used_at` set means this is a replay). Concurrent exchanges of one code serialise on
 * the lock: exactly one sees it unused. Call inside the transaction that issues the tokens.
 */
export async function claimAuthorizationCode(sql: SqlHandle, codeSha256: string): Promise<AuthorizationCodeRow | undefined> {
  const rows = await sql.unsafe<AuthorizationCodeRow[]>(
    `WITH prior AS (
       SELECT * FROM oauth_authorization_codes WHERE code_sha256 = $1 FOR UPDATE
     ), mark AS (
       UPDATE oauth_authorization_codes c SET used_at = now() FROM prior
       WHERE c.code_sha256 = prior.code_sha256 AND prior.used_at IS NULL
     )
     SELECT code_sha256, client_id, operator_id, tenant_id, scopes, redirect_uri, code_challenge, resource, actor,
            used_at, grant_id, expires_at <= now() AS expired
     FROM prior`,
    [codeSha256],
  );
  return rows[0];
}

/** Records which grant a code produced, so a replay of the code can revoke it. */
export async function linkAuthorizationCodeToGrant(sql: SqlHandle, codeSha256: string, grantId: string): Promise<void> {
  await sql.unsafe("UPDATE oauth_authorization_codes SET grant_id = $2::uuid WHERE code_sha256 = $1", [codeSha256, grantId]);
}

/** Removes codes that expired more than a day ago (used or not); returns how many went. */
export async function purgeExpiredAuthorizationCodes(sql: SqlHandle): Promise<number> {
  const rows = await sql.unsafe("DELETE FROM oauth_authorization_codes WHERE expires_at < now() - interval '1 day' RETURNING 1");
  return rows.length;
}
