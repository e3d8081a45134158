import { silentLogger } from "@runifold/sdk";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { runSchedulerPass } from "../../lib/schedules";
import { engineStore, TENANT } from "./support/harness";

/** Schedules: one fenced scheduler, an idempotency key per fire time, a stated catch-up policy. */
const store = engineStore();
const GRACE_MS = 60_000;

async function scheduledRoute(tool: string, cron: string, catchUp: "skip" | "one", lastFireAt?: string, tenant = TENANT) {
  await store.sql`
    INSERT INTO routes (tenant_id, tool_name, revision, workflow_name, workflow_version, input_schema,
                        schedule_cron, schedule_timezone, schedule_catch_up, schedule_input)
    VALUES (${tenant}, ${tool}, 1, 'nightly', 1, ${store.sql.json({ type: "object" })}, ${cron}, 'Europe/Paris', ${catchUp},
            ${store.sql.json({ region: "eu" })})`;
  if (lastFireAt)
    await store.sql`INSERT INTO schedule_cursors (tenant_id, tool_name, last_fire_at) VALUES (${tenant}, ${tool}, ${lastFireAt})`;
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

  it("never fires a disabled tenant's schedules, and does not catch them up when it is enabled again", async () => {
    const [off] = await store.sql<{ id: string }[]>`
      INSERT INTO tenants (slug, name, disabled_at) VALUES ('sched-off', 'Off', now()) RETURNING id`;
    await scheduledRoute("off-hourly", "0 * * * *", "one", "2026-06-01T09:00:00Z", off?.id);
    await pass("2026-06-01T10:00:02Z");
    await pass("2026-06-01T11:00:02Z");
    expect(await runsOf("off-hourly")).toHaveLength(0);
    // Like a paused schedule, the cursor moved on: enabled again, it fires from then on, not for the past.
    await store.sql`UPDATE tenants SET disabled_at = NULL WHERE id = ${off?.id as string}`;
    await pass("2026-06-01T11:30:00Z");
    expect(await runsOf("off-hourly")).toHaveLength(0);
    await pass("2026-06-01T12:00:02Z");
    expect(await runsOf("off-hourly")).toHaveLength(1);
  });

  it("keeps a fire time's key out of every caller's reach", async () => {
    await scheduledRoute("keyed", "0 * * * *", "skip", "2026-06-01T09:00:00Z");
    // A caller's key is scoped to the tool and its own credential (lib/tasks/create-task.ts); even a
    // run created with the fire time's own key in the tool's plain scope does not take the fire.
    await store.sql`
      INSERT INTO run_idempotency_keys (tenant_id, scope, key, run_id, expires_at)
      VALUES (${TENANT}, 'tool:keyed', 'schedule:2026-06-01T10:00:00.000Z', gen_random_uuid(), now() + interval '1 day')`;
    const fired = await pass("2026-06-01T10:00:02Z");
    expect(fired).toMatchObject({ status: "completed", fired: [{ tool: "keyed" }] });
    const runs = await runsOf("keyed");
    expect(runs.map((run) => run.origin)).toEqual(["schedule"]);
  });

  it("commits each schedule on its own: one that fails in SQL does not undo or block the others", async () => {
    await scheduledRoute("poisoned", "0 * * * *", "skip", "2026-06-01T09:00:00Z");
    await scheduledRoute("healthy", "0 * * * *", "skip", "2026-06-01T09:00:00Z");
    // A fault only this route's runs meet, in the database itself (what a bad value or a full disk
    // would raise): the statement fails, and with it the transaction it runs in.
    await store.sql.unsafe(`
      CREATE FUNCTION refuse_poisoned() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM routes WHERE id = NEW.route_id AND tool_name = 'poisoned') THEN
          RAISE EXCEPTION 'refused by the test';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_poisoned BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION refuse_poisoned();`);
    try {
      const fired = await pass("2026-06-01T10:00:02Z");
      expect(fired).toMatchObject({ status: "completed", fired: [{ tool: "healthy" }] });
      expect(await runsOf("healthy")).toHaveLength(1);
      expect((await cursorOf("healthy"))?.toISOString()).toBe("2026-06-01T10:00:00.000Z");
      // The failed schedule's cursor stays where it was: the next pass tries that fire time again.
      expect((await cursorOf("poisoned"))?.toISOString()).toBe("2026-06-01T09:00:00.000Z");
    } finally {
      await store.sql.unsafe("DROP TRIGGER refuse_poisoned ON runs; DROP FUNCTION refuse_poisoned()");
    }
  });
});
