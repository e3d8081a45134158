import { createRun } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { engineStore, TENANT } from "./support/harness";

/** History guards as documented (review F14): only the cleaner deletes history, and only of runs that are over. */
const store = engineStore();

const liveRun = () => createRun(store.sql, { tenantId: TENANT, workflowName: "guarded", workflowVersion: 1, input: {} });

describe("history guards", () => {
  it("refuses to delete a live run's history, even with the cleaner's purge flag set", async () => {
    const run = await liveRun();
    await expect(
      store.sql.begin(async (tx) => {
        await tx`SELECT set_config('runifold.purge', 'on', true)`;
        await tx`DELETE FROM run_events WHERE run_id = ${run.id}`;
      }),
    ).rejects.toThrow(/append-only/);
    await expect(store.sql`DELETE FROM runs WHERE id = ${run.id}`).rejects.toThrow(/cannot be deleted/);
    const [events] = await store.sql`SELECT count(*)::int AS n FROM run_events WHERE run_id = ${run.id}`;
    expect(events?.n).toBe(1);
  });

  it("refuses TRUNCATE of runs, run_events and run_steps", async () => {
    await liveRun();
    for (const table of ["run_events", "runs", "run_steps"]) {
      // CASCADE: tables that reference runs (approvals, MCP rounds) would otherwise make PostgreSQL
      // refuse before the guard is reached; with it, the guard must refuse the whole statement.
      await expect(store.sql.unsafe(`TRUNCATE ${table} CASCADE`)).rejects.toThrow(/cannot be truncated/);
    }
    const [runs] = await store.sql`SELECT count(*)::int AS n FROM runs`;
    expect(runs?.n).toBeGreaterThan(0);
  });

  it("refuses a terminal run that is still claimable", async () => {
    const run = await liveRun();
    await expect(store.sql`UPDATE runs SET status = 'completed', finished_at = now() WHERE id = ${run.id}`).rejects.toThrow(
      /runs_terminal_unclaimable/,
    );
  });
});
