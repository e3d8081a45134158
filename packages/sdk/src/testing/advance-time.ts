import type { SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { expireRuns } from "../ops/expire-runs";

/**
 * Time skipping for the test harness: moves every stored instant of the chosen runs back by a
 * shift, as if that much time had passed for them — the runs' timers of every kind move together
 * and keep their order:
 *  - sleeps (`sleep:<key>` wakeAt) and parked retry backoffs (`retry:<key>` retryAt),
 *  - signal timeouts (`deadline:<wait>`, epoch ms) and open input requests' deadlines,
 *  - the run's own deadline, its creation time (a timeout's message reads `deadline - created`)
 *    and when it is next claimable.
 * `ms` null shifts each run to its next timer (the earliest of claimable_at and deadline_at still
 * ahead), so exactly one thing fires. Only runs no worker holds are moved (queued or parked): a
 * running attempt keeps the clock it started with. Runs whose deadline has now passed are failed
 * at once, as the workers' sweep would; the others are woken. Answers the number of runs moved.
 */
export async function advanceRunClocks(sql: SqlHandle, params: { runId?: string; ms: number | null }): Promise<number> {
  const moved = await sql.unsafe<{ id: string }[]>(
    `WITH target AS (
       SELECT r.id, CASE WHEN $2::float8 IS NULL
                THEN least(r.claimable_at, r.deadline_at) - now() + interval '1 millisecond'
                ELSE make_interval(secs => $2::float8 / 1000.0) END AS shift
       FROM runs r
       WHERE r.status IN ('queued', 'sleeping', 'waiting_signal', 'waiting_input')
         AND ($1::uuid IS NULL OR r.id = $1::uuid)
         AND ($2::float8 IS NOT NULL OR least(r.claimable_at, r.deadline_at) > now())
       FOR UPDATE
     ), timers AS (
       UPDATE run_steps s SET output = CASE
           WHEN s.key LIKE 'sleep:%' THEN jsonb_set(s.output, '{wakeAt}', to_jsonb((s.output->>'wakeAt')::timestamptz - t.shift))
           WHEN s.key LIKE 'retry:%' THEN jsonb_set(s.output, '{retryAt}', to_jsonb((s.output->>'retryAt')::timestamptz - t.shift))
           ELSE to_jsonb(s.output::text::float8 - extract(epoch FROM t.shift) * 1000)
         END
       FROM target t
       WHERE s.run_id = t.id AND (s.key LIKE 'sleep:%' OR s.key LIKE 'retry:%' OR s.key LIKE 'deadline:%')
     ), inputs AS (
       UPDATE run_inputs i SET deadline_at = i.deadline_at - t.shift
       FROM target t WHERE i.run_id = t.id AND i.deadline_at IS NOT NULL AND i.response IS NULL AND i.answered_at IS NULL
     )
     UPDATE runs r SET claimable_at = r.claimable_at - t.shift, deadline_at = r.deadline_at - t.shift,
            created_at = r.created_at - t.shift, updated_at = now()
     FROM target t WHERE r.id = t.id
     RETURNING r.id, pg_notify('${CHANNELS.wake}', r.workflow_key)`,
    [params.runId ?? null, params.ms],
  );
  await expireRuns(sql);
  return moved.length;
}
