import { isUuid, type SqlHandle } from "@runifold/store";

export type OperatorRole = "admin" | "operator";

export type OperatorRow = {
  id: string;
  email: string;
  name: string;
  password_hash: string;
  role: OperatorRole;
  disabled_at: Date | null;
  session_version: number;
  must_change_password: boolean;
  password_changed_at: Date | null;
  /** The sealed TOTP secret (lib/auth/mfa-secret.ts); with `mfa_enabled_at` NULL an enrolment in progress. */
  mfa_secret_sealed: string | null;
  mfa_enabled_at: Date | null;
  created_at: Date;
};

/** What may leave the store for display: never the password hash or the sealed TOTP secret. */
type PublicOperator = Omit<OperatorRow, "password_hash" | "mfa_secret_sealed">;

export type OperatorSummary = PublicOperator & { tenant_slugs: string[] };

/** Emails compare case-insensitively: stored lower-cased, looked up lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export async function createOperator(
  sql: SqlHandle,
  params: { email: string; passwordHash: string; role: OperatorRole; name?: string; mustChangePassword?: boolean },
): Promise<OperatorRow> {
  const rows = await sql.unsafe<OperatorRow[]>(
    "INSERT INTO operators (email, name, password_hash, role, must_change_password) VALUES ($1, $2, $3, $4, $5) RETURNING *",
    [normalizeEmail(params.email), params.name ?? "", params.passwordHash, params.role, params.mustChangePassword ?? false],
  );
  return rows[0] as OperatorRow;
}

export async function findOperatorByEmail(sql: SqlHandle, email: string): Promise<OperatorRow | undefined> {
  const rows = await sql.unsafe<OperatorRow[]>("SELECT * FROM operators WHERE email = $1", [normalizeEmail(email)]);
  return rows[0];
}

export async function findOperatorById(sql: SqlHandle, operatorId: string): Promise<OperatorRow | undefined> {
  if (!isUuid(operatorId)) return undefined;
  const rows = await sql.unsafe<OperatorRow[]>("SELECT * FROM operators WHERE id = $1", [operatorId]);
  return rows[0];
}

const PUBLIC_COLUMNS =
  "o.id, o.email, o.name, o.role, o.disabled_at, o.session_version, o.must_change_password, o.password_changed_at, o.mfa_enabled_at, o.created_at";

export type OperatorWithTenants = PublicOperator & {
  tenant_ids: string[];
  session_live: boolean;
  /** How the session was signed in (`password`, `sso`); null without a session. */
  session_method: string | null;
  /** Signed in with the password, the second factor still due (ASVS 2.8). */
  session_second_factor_pending: boolean;
  /** The session proved who it is within `recentMs` (sign-in, second factor or re-entry; ASVS 3.7.1). */
  session_recent: boolean;
};

/**
 * The operator, the tenants it belongs to and the state of session `sessionId` (live, second
 * factor still due, recently authenticated), in one round trip: what every authorization check
 * re-reads (so a disabled or demoted operator, or a signed-out session, loses access on its next
 * request).
 */
export async function findOperatorWithTenants(
  sql: SqlHandle,
  operatorId: string,
  sessionId: string | null = null,
  recentMs = 0,
): Promise<OperatorWithTenants | undefined> {
  if (!isUuid(operatorId)) return undefined;
  const rows = await sql.unsafe<OperatorWithTenants[]>(
    `SELECT ${PUBLIC_COLUMNS},
            coalesce(array_agg(m.tenant_id::text) FILTER (WHERE m.tenant_id IS NOT NULL), '{}') AS tenant_ids,
            (s.id IS NOT NULL AND s.ended_at IS NULL AND s.expires_at > now()) AS session_live,
            s.method AS session_method,
            coalesce(s.second_factor_pending, false) AS session_second_factor_pending,
            coalesce(s.authenticated_at > now() - $3 * interval '1 millisecond', false) AS session_recent
     FROM operators o LEFT JOIN operator_tenants m ON m.operator_id = o.id
       LEFT JOIN operator_sessions s ON s.id = $2 AND s.operator_id = o.id
     WHERE o.id = $1 GROUP BY o.id, s.id`,
    [operatorId, sessionId, recentMs],
  );
  return rows[0];
}

/**
 * A new password hash; every other session ends. `mustChange` (an admin's reset) makes the console
 * ask for a new one first. Without `keepSessionId` (a reset) the session version is bumped too; a
 * change by the operator keeps `keepSessionId`, the session it was made from.
 */
export async function updateOperatorPassword(
  sql: SqlHandle,
  params: { operatorId: string; passwordHash: string; mustChange: boolean; keepSessionId?: string | null },
): Promise<boolean> {
  const rows = await sql.unsafe(
    `WITH o AS (
       UPDATE operators SET password_hash = $2, must_change_password = $3, password_changed_at = now(),
         session_version = session_version + CASE WHEN $4::text IS NULL THEN 1 ELSE 0 END
       WHERE id = $1 RETURNING id
     ), s AS (
       UPDATE operator_sessions SET ended_at = now()
       WHERE operator_id IN (SELECT id FROM o) AND ended_at IS NULL AND id IS DISTINCT FROM $4
     )
     SELECT id FROM o`,
    [params.operatorId, params.passwordHash, params.mustChange, params.keepSessionId ?? null],
  );
  return rows.length === 1;
}

/** Only the stored hash (a rehash at sign-in with stronger parameters): sessions are untouched. */
export async function replacePasswordHash(sql: SqlHandle, params: { operatorId: string; passwordHash: string }): Promise<void> {
  await sql.unsafe("UPDATE operators SET password_hash = $2 WHERE id = $1", [params.operatorId, params.passwordHash]);
}

/** Sign out everywhere: a new session version and every session ended, at once. */
export async function endAllOperatorSessions(sql: SqlHandle, operatorId: string): Promise<boolean> {
  if (!isUuid(operatorId)) return false;
  const rows = await sql.unsafe(
    `WITH o AS (UPDATE operators SET session_version = session_version + 1 WHERE id = $1 RETURNING id),
          s AS (UPDATE operator_sessions SET ended_at = now() WHERE operator_id = $1 AND ended_at IS NULL)
     SELECT id FROM o`,
    [operatorId],
  );
  return rows.length === 1;
}

/**
 * Records a sign-in's session (the JWT carries `id`); also drops sessions that ended or expired a
 * day ago. `secondFactorPending`: a password sign-in of an operator with MFA, refused by the
 * console until the second step (lib/auth/mfa.ts) clears it.
 */
export async function insertOperatorSession(
  sql: SqlHandle,
  params: { id: string; operatorId: string; maxAgeMs: number; method?: "password" | "sso"; secondFactorPending?: boolean },
): Promise<void> {
  await sql.unsafe(
    `INSERT INTO operator_sessions (id, operator_id, expires_at, method, second_factor_pending)
     VALUES ($1, $2, now() + $3 * interval '1 millisecond', $4, $5)`,
    [params.id, params.operatorId, params.maxAgeMs, params.method ?? "password", params.secondFactorPending ?? false],
  );
  await sql.unsafe(
    `DELETE FROM operator_sessions WHERE operator_id = $1
       AND coalesce(ended_at, expires_at) < now() - interval '1 day'`,
    [params.operatorId],
  );
}

/** Sign-out: this session ends now (any copy of its cookie is refused on its next request). */
export async function endOperatorSession(sql: SqlHandle, sessionId: string): Promise<void> {
  await sql.unsafe("UPDATE operator_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL", [sessionId]);
}

export async function countOperators(sql: SqlHandle): Promise<number> {
  const rows = await sql.unsafe<{ n: number }[]>("SELECT count(*)::int AS n FROM operators");
  return rows[0]?.n ?? 0;
}

export async function listOperators(sql: SqlHandle): Promise<OperatorSummary[]> {
  return sql.unsafe<OperatorSummary[]>(
    `SELECT ${PUBLIC_COLUMNS},
            coalesce(array_agg(t.slug ORDER BY t.slug) FILTER (WHERE t.slug IS NOT NULL), '{}') AS tenant_slugs
     FROM operators o LEFT JOIN operator_tenants m ON m.operator_id = o.id LEFT JOIN tenants t ON t.id = m.tenant_id
     GROUP BY o.id ORDER BY o.email`,
  );
}

/** Disabling also bumps the session version and ends every session: re-enabling does not revive them. */
export async function setOperatorDisabled(sql: SqlHandle, params: { operatorId: string; disabled: boolean }): Promise<boolean> {
  const rows = await sql.unsafe(
    `WITH o AS (
       UPDATE operators SET disabled_at = CASE WHEN $2 THEN coalesce(disabled_at, now()) END,
         session_version = session_version + CASE WHEN $2 THEN 1 ELSE 0 END
       WHERE id = $1 RETURNING id
     ), s AS (UPDATE operator_sessions SET ended_at = now() WHERE $2 AND operator_id = $1 AND ended_at IS NULL)
     SELECT id FROM o`,
    [params.operatorId, params.disabled],
  );
  return rows.length === 1;
}

export async function disableOperator(sql: SqlHandle, operatorId: string): Promise<boolean> {
  return setOperatorDisabled(sql, { operatorId, disabled: true });
}

export async function addOperatorTenant(sql: SqlHandle, params: { operatorId: string; tenantId: string }): Promise<void> {
  await sql.unsafe("INSERT INTO operator_tenants (operator_id, tenant_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
    params.operatorId,
    params.tenantId,
  ]);
}

export async function removeOperatorTenant(sql: SqlHandle, params: { operatorId: string; tenantId: string }): Promise<boolean> {
  const rows = await sql.unsafe("DELETE FROM operator_tenants WHERE operator_id = $1 AND tenant_id = $2 RETURNING operator_id", [
    params.operatorId,
    params.tenantId,
  ]);
  return rows.length === 1;
}

/** Members of one tenant (admins see every tenant without being members). */
export async function listTenantMembers(sql: SqlHandle, tenantId: string): Promise<PublicOperator[]> {
  return sql.unsafe(
    `SELECT ${PUBLIC_COLUMNS}
     FROM operator_tenants m JOIN operators o ON o.id = m.operator_id WHERE m.tenant_id = $1 ORDER BY o.email`,
    [tenantId],
  );
}
