import type postgres from "postgres";
import { readTaskRecord } from "../../lib/tasks";
import { waitFor } from "./wait-for";

/**
 * Reading and steering runs from a test. A test that needs a task to stay active while it looks
 * (a listen snapshot, an expired handle of a running task) starts it with a long durable sleep and
 * ends the sleep itself with wakeSleepingRun, instead of racing a short sleep against the machine.
 */
export async function runStatus(sql: postgres.Sql, runId: string): Promise<string | undefined> {
  return (await sql<{ status: string }[]>`SELECT status FROM runs WHERE id = ${runId}`)[0]?.status;
}

/** Waits until the run has `status` (one of several when given a list); fails with the status seen last. */
export function waitForRunStatus(sql: postgres.Sql, runId: string, status: string | string[], timeoutMs = 20_000) {
  const wanted = Array.isArray(status) ? status : [status];
  return waitFor(
    () => runStatus(sql, runId),
    (seen) => seen !== undefined && wanted.includes(seen),
    { describe: `run ${runId} to be ${wanted.join(" or ")}`, timeoutMs },
  );
}

/**
 * Ends a run's durable sleep now, as if its wake-up time had come: the engine stores the timer twice
 * (`runs.claimable_at` makes it claimable, the memoized step `sleep:<key>` tells the replay it is
 * over; packages/sdk/src/ops/suspend-for-timer.ts), so both move. Waits for the run to be asleep
 * first: a run still on its way to the sleep cannot be woken yet.
 */
export async function wakeSleepingRun(sql: postgres.Sql, runId: string): Promise<void> {
  await waitFor(
    async () => {
      const woken = await sql`
        WITH timer AS (
          UPDATE run_steps SET output = jsonb_build_object('wakeAt', now())
          WHERE run_id = ${runId} AND key LIKE 'sleep:%' AND (output->>'wakeAt')::timestamptz > now()
            AND EXISTS (SELECT 1 FROM runs WHERE id = ${runId} AND status = 'sleeping')
        )
        UPDATE runs SET claimable_at = now() WHERE id = ${runId} AND status = 'sleeping' RETURNING id`;
      return woken.length > 0 ? "woken" : await runStatus(sql, runId);
    },
    (seen) => seen === "woken",
    { describe: `run ${runId} to be sleeping so it can be woken` },
  );
}

/** Waits until the run's task handle has expired (ttlMs after creation, by the store's clock and rule). */
export function waitForHandleExpiry(sql: postgres.Sql, runId: string, timeoutMs = 20_000) {
  return waitFor(
    async () => {
      const tenantId = (await sql<{ tenant_id: string }[]>`SELECT tenant_id FROM runs WHERE id = ${runId}`)[0]?.tenant_id;
      return tenantId ? await readTaskRecord(sql, { tenantId, taskId: runId }) : undefined;
    },
    (record) => record?.handleExpired === true,
    { describe: `the task handle of run ${runId} to expire`, timeoutMs },
  );
}
