import { cancelRunForTenant } from "@runifold/sdk";
import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";

/** Why a run whose round nobody retried ends: what the operator and a later reader see. */
export const ABANDONED_ROUND_REASON = "Cancelled: the client never answered its input_required round (its requestState expired)";
/** Rounds looked at per sweep statement (the sweep repeats until none is due). */
const SWEEP_BATCH = 100;

/**
 * Records an MRTR round an ordinary modern call handed back bound to its run (ordinary-call.ts):
 * its requestState's nonce and expiry, and the keys it asked.
 */
export async function recordRound(
  sql: SqlHandle,
  round: { nonce: string; runId: string; tenantId: string; keys: string[]; expiresAt: number },
): Promise<void> {
  await sql.unsafe(
    `INSERT INTO mcp_ordinary_rounds (nonce, run_id, tenant_id, keys, expires_at)
     VALUES ($1, $2, $3, $4::text::jsonb, to_timestamp($5 / 1000.0)) ON CONFLICT (nonce) DO NOTHING`,
    [round.nonce, round.runId, round.tenantId, jsonParam(round.keys), round.expiresAt],
  );
}

/** The client retried the round (its requestState was redeemed): it is no longer open. */
export async function closeRound(sql: SqlHandle, nonce: string): Promise<void> {
  await sql.unsafe("DELETE FROM mcp_ordinary_rounds WHERE nonce = $1", [nonce]);
}

/**
 * Ends the runs of abandoned rounds (review3 D3). A client that does not want to answer simply does
 * not retry, and "Servers MUST NOT assume that clients will fulfill the inputRequests or retry the
 * original request" (2026-07-28 basic/patterns/mrtr.mdx, Server Requirements 8); the run exists only
 * for that call, and nobody else holds its ID. So once a round's requestState has expired unretried,
 * its run is cancelled — unless someone answered it meanwhile (an operator in the console, the CLI):
 * then the run no longer waits for exactly those keys, and it goes on. Expired rounds are deleted
 * either way. Run by each web process's retention pass (lib/server/retention.ts), so a run is
 * cancelled within RUNIFOLD_RETENTION_INTERVAL_MS of its round's expiry. Returns how many it cancelled.
 */
export async function cancelAbandonedRounds(sql: SqlHandle): Promise<{ rounds: number; cancelled: number }> {
  let rounds = 0;
  let cancelled = 0;
  for (;;) {
    const due = await sql.unsafe<{ run_id: string; tenant_id: string; keys: string[] }[]>(
      `WITH due AS (
         SELECT nonce FROM mcp_ordinary_rounds WHERE expires_at <= now() ORDER BY expires_at LIMIT ${SWEEP_BATCH}
         FOR UPDATE SKIP LOCKED
       )
       DELETE FROM mcp_ordinary_rounds o USING due WHERE o.nonce = due.nonce
       RETURNING o.run_id, o.tenant_id, o.keys`,
    );
    rounds += due.length;
    for (const round of due) if (await cancelIfStillAsking(sql, round)) cancelled += 1;
    if (due.length < SWEEP_BATCH) return { rounds, cancelled };
  }
}

/**
 * Cancels the round's run if it still waits for every key the round asked and no later round of the
 * run is open (a retry that asked again recorded one). In one transaction holding the run's row
 * lock, so an answer given meanwhile either lands first (and the run is left alone) or finds it cancelled.
 */
async function cancelIfStillAsking(
  sql: SqlHandle,
  round: { run_id: string; tenant_id: string; keys: string[] },
): Promise<boolean> {
  return inTransaction(sql, async (tx) => {
    const [still] = await tx.unsafe<{ asking: boolean }[]>(
      `SELECT (r.status = 'waiting_input'
             AND NOT EXISTS (SELECT 1 FROM mcp_ordinary_rounds later WHERE later.run_id = r.id)
             AND (SELECT count(*) FROM run_inputs i
                  WHERE i.run_id = r.id AND i.response IS NULL AND i.key = ANY(SELECT jsonb_array_elements_text($3::text::jsonb)))
                 = jsonb_array_length($3::text::jsonb)) AS asking
     FROM runs r WHERE r.id = $1 AND r.tenant_id = $2 FOR UPDATE OF r`,
      [round.run_id, round.tenant_id, jsonParam(round.keys)],
    );
    if (!still?.asking) return false;
    const outcome = await cancelRunForTenant(tx, {
      runId: round.run_id,
      tenantId: round.tenant_id,
      reason: ABANDONED_ROUND_REASON,
      actor: "system:mrtr-expiry",
    });
    return outcome.outcome === "cancelled";
  });
}
