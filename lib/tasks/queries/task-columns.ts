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

/**
 * A task's links to the task that started it and those it started (ctx.child): `parent_task_id`,
 * `child_task_ids`. Both read in the task's own tenant only (a child is always of its parent's tenant;
 * the condition keeps it so for any row), the children through runs_parent_key_idx (one index probe).
 */
export const TASK_LINKS_SQL = `(SELECT p.id FROM runs p WHERE p.id = r.parent_run_id AND p.tenant_id = r.tenant_id) AS parent_task_id,
            ARRAY(SELECT c.id FROM runs c WHERE c.parent_run_id = r.id AND c.tenant_id = r.tenant_id
                  ORDER BY c.created_at, c.id) AS child_task_ids`;
