import { TERMINAL_STATUSES_SQL } from "@runifold/sdk";

/**
 * SQL fragments every task read derives from a run row aliased `r` — one definition, so the MCP
 * eras, the UI and the CLI agree on what "expired", "the result" and "outstanding input" mean.
 */

/** The MCP handle's ttl has run out (the run itself is untouched). */
export const HANDLE_EXPIRED_SQL = "(r.ttl_ms IS NOT NULL AND r.created_at + r.ttl_ms * interval '1 millisecond' <= now())";

/** The terminal event's payload ({result} | {error} | {reason}) for terminal runs, else NULL. */
export const TERMINAL_PAYLOAD_SQL = `CASE WHEN r.status IN ${TERMINAL_STATUSES_SQL} THEN
              (SELECT e.payload FROM run_events e WHERE e.run_id = r.id AND e.type = r.status ORDER BY e.id DESC LIMIT 1)
            END`;

/** Every open input request by key while the run waits for input, else NULL (a timed-out one is closed: answered_at set, no response). */
export const PENDING_INPUTS_SQL = `CASE WHEN r.status = 'waiting_input' THEN
              (SELECT jsonb_object_agg(i.key, i.request ORDER BY i.requested_at, i.key) FROM run_inputs i
               WHERE i.run_id = r.id AND i.response IS NULL AND i.answered_at IS NULL)
            END`;
