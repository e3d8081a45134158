import { silentLogger } from "@runifold/sdk";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { runSchedulerPass } from "../../lib/schedules";
import { engineStore, TENANT } from "./support/harness";

/** Schedules: one fenced scheduler, an idempotency key per fire time, a stated catch-up policy. */
const store = engineStore();
const GRACE_MS = 60_000;

async function scheduledRoute(tool: string, cron: string, catchUp: "skip" | "one", lastFireAt?: string) {
  await store.sql`
    INSERT INTO routes (tenant_id, tool_name, revision, workflow_name, workflow_version, input_schema,
                        schedule_cron, schedule_timezone, schedule_catch_up, schedule_input)
    VALUES (${TENANT}, ${tool}, 1, 'nightly', 1, ${store.sql.json({ type: "object" })}, ${cron}, 'Europe/Paris', ${catchUp},
            ${store.sql.json({ region: "eu" })})`;
  if (lastFireAt)
    await store.sql`INSERT INTO schedule_cursors (tenant_id, tool_name, last_fire_at) VALUES (${TENANT}, ${tool}, ${lastFireAt})`;
}

const runsOf = (tool: string) => store.sql<{ id: string; origin: string; input: Record<string, unknown> }[]>`
  SELECT r.id, r.origin, r.input FROM runs r JOIN routes rt ON rt.id = r.route_id WHERE rt.tool_name = ${tool}`;
const cursorOf = async (tool: string) =>
  (await store.sql<{ at: Date }[]>`SELECT last_fire_at AS at FROM schedule_cursors WHERE tool_name = ${tool}`)[0]?.at;
const pass = (now: string, sql: postgres.Sql = store.sql) =>
  runSchedulerPass(sql, { logger: silentLogger, graceMs: GRACE_MS, now: new Date(now) });

describe("the scheduler", () => {
  it("starts a new schedule from now, then fires each fire time once (Europe/Paris)", async () => {
    await scheduledRoute("every-5", "*/5 * * * *", "skip");
    await pass("2026-06-01T10:01:00Z");
    expect(await runsOf("every-5")).toHaveLength(0);
    expect((await cursorOf("every-5"))?.toISOString()).toBe("2026-06-01T10:01:00.000Z");
    const fired = await pass("2026-06-01T10:05:03Z");
    expect(fired).toMatchObject({ status: "completed", fired: [{ tool: "every-5", fireAt: "2026-06-01T10:05:00.000Z" }] });
    await pass("2026-06-01T10:06:00Z");
    const runs = await runsOf("every-5");
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ origin: "schedule", input: { region: "eu" } });
  });

  it("never double-fires across two scheduler instances", async () => {
    await scheduledRoute("racing", "0 * * * *", "skip", "2026-06-01T09:00:00Z");
    const other = postgres(store.url, { max: 2, onnotice: () => {} });
    try {
      const passes = await Promise.all([
        pass("2026-06-01T10:00:02Z"),
        pass("2026-06-01T10:00:02Z", other),
        pass("2026-06-01T10:00:02Z"),
      ]);
      expect(passes.filter((p) => p.status === "completed" && p.fired.length === 1)).toHaveLength(1);
      // Even a pass that acts again for the same fire time (its lock lost in between) finds the run by its key.
      await store.sql`UPDATE schedule_cursors SET last_fire_at = '2026-06-01T09:00:00Z' WHERE tool_name = 'racing'`;
      await pass("2026-06-01T10:00:30Z", other);
      expect(await runsOf("racing")).toHaveLength(1);
    } finally {
      await other.end();
    }
  });

  it("after downtime, skips the missed fire times (skip) or fires exactly one run (one)", async () => {
    await scheduledRoute("skipper", "*/5 * * * *", "skip", "2026-06-01T06:00:00Z");
    await scheduledRoute("catcher", "*/5 * * * *", "one", "2026-06-01T06:00:00Z");
    const fired = await pass("2026-06-01T09:02:00Z");
    expect(fired).toMatchObject({ status: "completed", fired: [{ tool: "catcher", fireAt: "2026-06-01T09:00:00.000Z" }] });
    expect(await runsOf("skipper")).toHaveLength(0);
    expect(await runsOf("catcher")).toHaveLength(1);
    // Both schedules carry on from the latest fire time.
    expect((await cursorOf("skipper"))?.toISOString()).toBe("2026-06-01T09:00:00.000Z");
    await pass("2026-06-01T09:05:01Z");
    expect(await runsOf("skipper")).toHaveLength(1);
    expect(await runsOf("catcher")).toHaveLength(2);
  });
});
