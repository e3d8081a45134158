import { describeDefinition, publishDefinitions, silentLogger } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSchedulerPass } from "../../lib/schedules";
import { shippedWorkflows } from "../../workflows/demo";
import { freshDatabase } from "../helpers/db";
import { lastJson, runCli } from "./run-cli";

// `runifold routes schedule`: a schedule is part of a route revision, checked as the scheduler
// will use it (cron, timezone, input against the tool's schema), shown by `routes list` and
// previewed with its next fire times; the scheduler fires what the CLI set.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let env: Record<string, string>;
const base = ["--tenant", "sched", "--tool", "nightly_report"];

beforeAll(async () => {
  db = await freshDatabase();
  env = { DATABASE_URL: db.url, RUNIFOLD_LOG_LEVEL: "warn" };
  await publishDefinitions(db.sql, shippedWorkflows.all().map(describeDefinition), "test-worker");
  expect((await runCli(["tenants", "create", "sched"], env)).code).toBe(0);
  const added = await runCli(["routes", "add", ...base, "--workflow", "generate-report", "--version", "1"], env);
  expect(added.code).toBe(0);
  // Published, but no worker is online in this test: binding says so.
  expect(added.stderr).toContain("no online worker serves generate-report@1 now");
}, 120_000);
afterAll(async () => db.drop());

describe("runifold routes schedule", { timeout: 120_000 }, () => {
  it("refuses a bad cron, an unknown timezone and input the tool's schema refuses; changes nothing", async () => {
    const badCron = await runCli(["routes", "schedule", ...base, "--cron", "every tuesday"], env);
    expect(badCron.code).toBe(4);
    expect(badCron.stderr).toMatch(/invalid schedule "every tuesday"/);
    const badZone = await runCli(["routes", "schedule", ...base, "--cron", "0 9 * * *", "--timezone", "Mars/Olympus"], env);
    expect(badZone.code).toBe(4);
    const badInput = await runCli(["routes", "schedule", ...base, "--cron", "0 9 * * *", "--input", '{"report_id": 7}'], env);
    expect(badInput.code).toBe(4);
    expect(badInput.stderr).toMatch(/schedule input: .*report_id/);
    const neither = await runCli(["routes", "schedule", ...base], env);
    expect(neither.code).toBe(4);
    const [row] = await db.sql`SELECT count(*)::int AS n FROM routes WHERE tool_name = 'nightly_report'`;
    expect(row?.n).toBe(1);
  });

  it("sets a schedule as a new revision, lists and previews it, keeps it across a revision, and clears it", async () => {
    const set = await runCli(
      [
        "routes",
        "schedule",
        ...base,
        "--cron",
        "30 6 * * 1-5",
        "--timezone",
        "Europe/Berlin",
        "--catch-up",
        "one",
        "--input",
        '{"report_id":"daily"}',
        "--json",
      ],
      env,
    );
    expect(set.code).toBe(0);
    expect(lastJson(set)).toMatchObject({ revision: 2, schedule_cron: "30 6 * * 1-5", schedule_timezone: "Europe/Berlin" });

    const listed = await runCli(["routes", "list", "--tenant", "sched"], env);
    expect(listed.stdout).toContain("30 6 * * 1-5 (Europe/Berlin, catch-up one)");

    const preview = await runCli(["routes", "schedule", ...base, "--preview", "3", "--json"], env);
    const next = lastJson(preview).next as string[];
    expect(next).toHaveLength(3);
    for (const at of next) {
      const local = new Intl.DateTimeFormat("en-GB", {
        timeZone: "Europe/Berlin",
        hour: "2-digit",
        minute: "2-digit",
        weekday: "short",
      }).format(new Date(at));
      expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 06:30$/);
    }

    const revised = await runCli(["routes", "add", ...base, "--workflow", "generate-report", "--version", "1", "--json"], env);
    expect(lastJson(revised)).toMatchObject({
      revision: 3,
      schedule_cron: "30 6 * * 1-5",
      schedule_input: { report_id: "daily" },
    });

    const cleared = await runCli(["routes", "schedule", ...base, "--clear", "--json"], env);
    expect(lastJson(cleared)).toMatchObject({ revision: 4, schedule_cron: null });
  });

  it("is fired by the scheduler with the schedule's input", async () => {
    const every = await runCli(["routes", "schedule", ...base, "--cron", "* * * * * *", "--input", '{"report_id":"tick"}'], env);
    expect(every.code).toBe(0);
    // The first pass only starts the schedule's cursor (a schedule never fires for times before it existed).
    await runSchedulerPass(db.sql, { logger: silentLogger, graceMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // let at least one per-second fire time pass
    const pass = await runSchedulerPass(db.sql, { logger: silentLogger, graceMs: 60_000 });
    expect(pass).toMatchObject({ status: "completed", fired: [{ tool: "nightly_report" }] });
    const [run] = await db.sql`SELECT input, origin FROM runs ORDER BY created_at DESC LIMIT 1`;
    expect(run?.input).toMatchObject({ report_id: "tick" });
  });
});
