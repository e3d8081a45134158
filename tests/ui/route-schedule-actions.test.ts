import { silentLogger } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findLatestRoute, insertRouteRevision } from "../../db/queries/routes";
import { definitionsFromStore, saveRoute, searchAudit } from "../../lib/admin";
import { runSchedulerPass } from "../../lib/schedules";
import { previewScheduleAction, setRouteScheduleAction, setRouteSchedulePausedAction } from "../../lib/ui/actions/route-actions";
import { presentRoutes } from "../../lib/ui/presenters/routes";
import { freshDatabase } from "../helpers/db";
import { contextFor, makeOperator, makeTenant } from "./helpers";

/** The route page's schedule actions: set, preview, pause and resume, authorized and audited. */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenant: { id: string };
let admin: { id: string };
let outsider: { id: string };
const TOOL = "nightly_report";

const pass = (now: string) => runSchedulerPass(sql, { logger: silentLogger, graceMs: 60_000, now: new Date(now) });
const runCount = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM runs WHERE origin = 'schedule'`)[0]?.n;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenant = await makeTenant(sql, "sched-a");
  const other = await makeTenant(sql, "sched-b");
  admin = await makeOperator(sql, "admin");
  outsider = await makeOperator(sql, "operator", [other.id]);
  await insertRouteRevision(sql, {
    tenantId: tenant.id,
    toolName: TOOL,
    workflowName: "generate-report",
    workflowVersion: 1,
    inputSchema: { type: "object" },
    taskSupport: "optional",
  });
});
afterAll(async () => {
  await db.drop();
});

describe("schedules on the route page", () => {
  it("refuses a bad cron or timezone with croner's reason, and previews the next 5 fire times", async () => {
    const ctx = contextFor(sql, admin.id);
    const target = { tenantId: tenant.id, toolName: TOOL };
    await expect(setRouteScheduleAction(ctx, { ...target, schedule: { cron: "61 * * * *" } })).rejects.toThrow(
      /invalid schedule "61 \* \* \* \*" \(UTC\)/,
    );
    await expect(
      setRouteScheduleAction(ctx, { ...target, schedule: { cron: "0 * * * *", timezone: "Mars/Olympus" } }),
    ).rejects.toThrow(/Mars\/Olympus/);
    await expect(previewScheduleAction(ctx, { cron: "nope" })).rejects.toThrow(/invalid schedule "nope"/);
    const { next } = await previewScheduleAction(ctx, { cron: "0 9 * * 1-5", timezone: "Europe/Paris" });
    expect(next).toHaveLength(5);
    expect(next.every((at) => ["07:00", "08:00"].includes(new Date(at).toISOString().slice(11, 16)))).toBe(true);
    expect((await findLatestRoute(sql, tenant.id, TOOL))?.schedule_cron).toBeNull();
  });

  it("takes the runs' input from the editor's controls, typed by the route's schema, naming a field at fault", async () => {
    const tool = "deploy_approval";
    const own = await makeTenant(sql, "sched-input"); // its own tenant: the other tests count this one's schedules
    await insertRouteRevision(sql, {
      tenantId: own.id,
      toolName: tool,
      workflowName: "deploy",
      workflowVersion: 1,
      inputSchema: {
        type: "object",
        properties: { service: { type: "string" }, release: { type: "string" }, replicas: { type: "integer", minimum: 1 } },
        required: ["service", "release"],
      },
      taskSupport: "optional",
    });
    const ctx = contextFor(sql, admin.id);
    const target = { tenantId: own.id, toolName: tool };
    const schedule = { cron: "0 9 * * 1-5", timezone: "Europe/Paris" };
    // The review's case: no input at all is refused by the schema, before anything is saved.
    await expect(setRouteScheduleAction(ctx, { ...target, schedule })).rejects.toThrow(/schedule input: .*: required/);
    await expect(
      setRouteScheduleAction(ctx, { ...target, schedule, inputValues: { service: "api", release: "", replicas: "0" } }),
    ).rejects.toThrow("schedule input: release: Required; replicas: Must be at least 1");
    expect((await findLatestRoute(sql, own.id, tool))?.schedule_cron).toBeNull();
    await setRouteScheduleAction(ctx, { ...target, schedule, inputValues: { service: "api", release: "v1.0.0", replicas: "2" } });
    const saved = await findLatestRoute(sql, own.id, tool);
    expect(saved?.schedule_cron).toBe("0 9 * * 1-5");
    expect(saved?.schedule_input).toEqual({ service: "api", release: "v1.0.0", replicas: 2 });
    // Another tenant's operator cannot set it, whatever the controls say.
    await expect(
      setRouteScheduleAction(contextFor(sql, outsider.id), { ...target, schedule, inputValues: { service: "x", release: "y" } }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("is not found for an operator outside the tenant", async () => {
    const ctx = contextFor(sql, outsider.id);
    await expect(
      setRouteScheduleAction(ctx, { tenantId: tenant.id, toolName: TOOL, schedule: { cron: "0 * * * *" } }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(setRouteSchedulePausedAction(ctx, { tenantId: tenant.id, toolName: TOOL, paused: true })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("pauses without firing, and resuming never fires the pause's backlog (even with catch-up one)", async () => {
    const ctx = contextFor(sql, admin.id);
    const target = { tenantId: tenant.id, toolName: TOOL };
    await expect(setRouteSchedulePausedAction(ctx, { ...target, paused: true })).rejects.toThrow(/no schedule to pause/);
    await setRouteScheduleAction(ctx, { ...target, schedule: { cron: "0 * * * *", timezone: "UTC", catchUp: "one" } });
    await pass("2026-06-01T09:30:00Z"); // first seen: starts from now
    await setRouteSchedulePausedAction(ctx, { ...target, paused: true });
    const view = await presentRoutes(sql, { id: admin.id, email: "", name: "", role: "admin", tenantIds: null });
    expect(view.routes[0]?.schedule).toMatchObject({ cron: "0 * * * *", paused: true });
    expect(view.routes[0]?.schedule?.next).toHaveLength(5);

    expect(await pass("2026-06-01T10:00:05Z")).toEqual({ status: "completed", fired: [] });
    // Revising the route (another version, say) keeps the pause.
    await saveRoute(
      { sql, actor: { kind: "operator", id: admin.id, email: "" }, resolveDefinition: definitionsFromStore(sql) },
      { ...target, workflowName: "generate-report", workflowVersion: 1, inputSchema: { type: "object" }, allowUnpublished: true },
    );
    expect(await findLatestRoute(sql, tenant.id, TOOL)).toMatchObject({ schedule_cron: "0 * * * *", schedule_paused: true });
    expect(await pass("2026-06-01T12:30:00Z")).toEqual({ status: "completed", fired: [] });
    await setRouteSchedulePausedAction(ctx, { ...target, paused: false });
    expect(await pass("2026-06-01T12:40:00Z")).toEqual({ status: "completed", fired: [] });
    expect(await runCount()).toBe(0);
    expect(await pass("2026-06-01T13:00:02Z")).toMatchObject({ fired: [{ tool: TOOL, fireAt: "2026-06-01T13:00:00.000Z" }] });
    expect(await runCount()).toBe(1);

    const audit = await searchAudit({ sql }, { scope: [tenant.id], action: "route.schedule." });
    expect(audit.entries.map((e) => e.action).sort()).toEqual([
      "route.schedule.pause",
      "route.schedule.resume",
      "route.schedule.set",
    ]);
  });
});
