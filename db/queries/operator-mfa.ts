import { isUuid, type SqlHandle } from "@runifold/store";

// Second factor state (ASVS 2.8) and the session's authentication steps (ASVS 3.7.1). The sealed
// secret leaves the store only through readMfaSecret, for the code check; lists never carry it.

export type MfaState = { sealed: string | null; enabledAt: Date | null };

export async function readMfaSecret(sql: SqlHandle, operatorId: string): Promise<MfaState | undefined> {
  if (!isUuid(operatorId)) return undefined;
  const rows = await sql.unsafe<{ mfa_secret_sealed: string | null; mfa_enabled_at: Date | null }[]>(
    "SELECT mfa_secret_sealed, mfa_enabled_at FROM operators WHERE id = $1",
    [operatorId],
  );
  const row = rows[0];
  return row && { sealed: row.mfa_secret_sealed, enabledAt: row.mfa_enabled_at };
}

/** Starts (or restarts) an enrolment: the new secret waits for its first code. Never replaces an enabled one. */
export async function setPendingMfaSecret(sql: SqlHandle, params: { operatorId: string; sealed: string }): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE operators SET mfa_secret_sealed = $2, mfa_last_step = NULL
     WHERE id = $1 AND mfa_enabled_at IS NULL RETURNING id`,
    [params.operatorId, params.sealed],
  );
  return rows.length === 1;
}

/**
 * The first code was right: MFA is on, with these recovery codes (hashes) replacing any old ones,
 * and `step` spent. One statement, so a double submit enables once.
 */
export async function enableMfa(
  sql: SqlHandle,
  params: { operatorId: string; step: number; recoveryCodeHashes: string[] },
): Promise<boolean> {
  const rows = await sql.unsafe(
    `WITH o AS (
       UPDATE operators SET mfa_enabled_at = now(), mfa_last_step = $2
       WHERE id = $1 AND mfa_enabled_at IS NULL AND mfa_secret_sealed IS NOT NULL RETURNING id
     ), gone AS (DELETE FROM operator_recovery_codes WHERE operator_id IN (SELECT id FROM o))
     INSERT INTO operator_recovery_codes (operator_id, code_hash)
     SELECT o.id, h FROM o, unnest($3::text[]) AS h RETURNING operator_id`,
    [params.operatorId, params.step, params.recoveryCodeHashes],
  );
  return rows.length > 0;
}

/** MFA off: the secret, its last step and every recovery code go. Returns whether it was on (or pending). */
export async function clearMfa(sql: SqlHandle, operatorId: string): Promise<boolean> {
  if (!isUuid(operatorId)) return false;
  const rows = await sql.unsafe(
    `WITH o AS (
       UPDATE operators SET mfa_secret_sealed = NULL, mfa_enabled_at = NULL, mfa_last_step = NULL
       WHERE id = $1 AND mfa_secret_sealed IS NOT NULL RETURNING id
     ), gone AS (DELETE FROM operator_recovery_codes WHERE operator_id = $1)
     SELECT id FROM o`,
    [operatorId],
  );
  return rows.length === 1;
}

/**
 * Spends TOTP time step `step` unless it (or a later one) was already used: a code is good once
 * (RFC 6238 §5.2), even by two requests racing (the row lock orders them).
 */
export async function spendTotpStep(sql: SqlHandle, params: { operatorId: string; step: number }): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE operators SET mfa_last_step = $2
     WHERE id = $1 AND mfa_enabled_at IS NOT NULL AND (mfa_last_step IS NULL OR mfa_last_step < $2) RETURNING id`,
    [params.operatorId, params.step],
  );
  return rows.length === 1;
}

/** Spends one recovery code; false when it is unknown or already used. Returns how many are left. */
export async function spendRecoveryCode(
  sql: SqlHandle,
  params: { operatorId: string; codeHash: string },
): Promise<{ spent: boolean; remaining: number }> {
  const rows = await sql.unsafe<{ remaining: number }[]>(
    `WITH spent AS (
       UPDATE operator_recovery_codes SET used_at = now()
       WHERE operator_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING code_hash
     )
     SELECT (SELECT count(*)::int FROM operator_recovery_codes
             WHERE operator_id = $1 AND used_at IS NULL AND code_hash NOT IN (SELECT code_hash FROM spent)) AS remaining
     FROM spent`,
    [params.operatorId, params.codeHash],
  );
  const row = rows[0];
  return row ? { spent: true, remaining: row.remaining } : { spent: false, remaining: 0 };
}

export async function countUnusedRecoveryCodes(sql: SqlHandle, operatorId: string): Promise<number> {
  const rows = await sql.unsafe<{ n: number }[]>(
    "SELECT count(*)::int AS n FROM operator_recovery_codes WHERE operator_id = $1 AND used_at IS NULL",
    [operatorId],
  );
  return rows[0]?.n ?? 0;
}

/** The second step is done: the session reaches the console, and counts as just authenticated. */
export async function completeSecondFactor(sql: SqlHandle, params: { sessionId: string; operatorId: string }): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE operator_sessions SET second_factor_pending = false, authenticated_at = now()
     WHERE id = $1 AND operator_id = $2 AND ended_at IS NULL AND expires_at > now() RETURNING id`,
    [params.sessionId, params.operatorId],
  );
  return rows.length === 1;
}

/** A re-authentication (password or code re-entered): the session counts as recent again. */
export async function markSessionAuthenticated(
  sql: SqlHandle,
  params: { sessionId: string; operatorId: string },
): Promise<boolean> {
  const rows = await sql.unsafe(
    `UPDATE operator_sessions SET authenticated_at = now()
     WHERE id = $1 AND operator_id = $2 AND NOT second_factor_pending AND ended_at IS NULL AND expires_at > now() RETURNING id`,
    [params.sessionId, params.operatorId],
  );
  return rows.length === 1;
}
