import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetricsHandler } from "../../lib/metrics";
import { familyTypes, parseSamples, sampleValue } from "../helpers/prometheus";
import { type LoopbackServer, serveRequests } from "../helpers/serve-requests";
import { waitFor } from "../helpers/wait-for";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";

/**
 * GET /api/metrics over real HTTP on a real store: the time-to-decide histogram and the expired
 * counter are the store's totals (approval_settle_stats, counted as each approval settles), read at
 * scrape time — decided by people over the HTTP API, expired by the store's clock.
 */
const TOKEN = "approval-metrics-token-0123456789";
let fx: ApprovalFixture;
let metrics: LoopbackServer;

beforeAll(async () => {
  fx = await startApprovalFixture();
  const handle = createMetricsHandler({ sql: () => fx.sql, token: TOKEN });
  metrics = await serveRequests((request) => handle(request));
});
afterAll(async () => {
  await metrics?.close();
  await fx?.close();
});

async function scrape(): Promise<string> {
  const response = await fetch(`${metrics.origin}/api/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  return response.text();
}
const parked = (taskId: string) => fx.parked(taskId);
const finished = (taskId: string) =>
  waitFor(
    () => fx.sql`SELECT 1 FROM runs WHERE id = ${taskId} AND status = 'completed'`,
    (rows) => rows.length === 1,
    { describe: "the run to finish" },
  );
const decide =
  (labels: Record<string, string>) =>
  (text: string, suffix: string, extra: Record<string, string> = {}) =>
    sampleValue(text, `runifold_approval_decide_seconds_${suffix}`, { ...labels, ...extra });

describe("approval metrics on /api/metrics", { timeout: 60_000 }, () => {
  it("reports time to decide as a histogram and expiries as a counter, from the store", async () => {
    const before = await scrape();
    expect(familyTypes(before)).toMatchObject({
      runifold_approval_decide_seconds: "histogram",
      runifold_approvals_expired_total: "counter",
    });
    expect(sampleValue(before, "runifold_approvals_expired_total", { tenant: "acme", outcome: "rejected" })).toBe(0);
    expect(parseSamples(before).filter((s) => s.name.startsWith("runifold_approval_decide_seconds"))).toEqual([]);

    // Decided by people about ten minutes after it opened (the store's clock moved back for the test).
    const approved = await fx.start({ approvers: { groups: ["finance"] } });
    await parked(approved);
    await fx.sql`UPDATE approvals SET opened_at = now() - interval '10 minutes' WHERE run_id = ${approved}`;
    expect((await fx.decide(fx.b.token, approved, "approve")).status).toBe(201);
    await finished(approved);
    // Rejected at once.
    const rejected = await fx.start({ approvers: { groups: ["finance"] } });
    await parked(rejected);
    expect((await fx.decide(fx.c.token, rejected, "reject")).status).toBe(201);
    await finished(rejected);
    // Expired by the store's clock into onExpire's outcome.
    const expired = await fx.start({ approvers: { groups: ["finance"] }, expiresIn: "1h", onExpire: "reject" });
    await parked(expired);
    await fx.sql`UPDATE approvals SET expires_at = now() - interval '1 second' WHERE run_id = ${expired}`;
    await fx.sql`UPDATE runs SET claimable_at = now() WHERE id = ${expired}`;
    await finished(expired);

    const text = await scrape();
    const ok = decide({ tenant: "acme", outcome: "approved" });
    expect(ok(text, "count")).toBe(1);
    expect(ok(text, "sum")).toBeGreaterThanOrEqual(600);
    expect(ok(text, "sum")).toBeLessThan(660);
    expect(ok(text, "bucket", { le: "300" })).toBe(0);
    expect(ok(text, "bucket", { le: "900" })).toBe(1);
    expect(ok(text, "bucket", { le: "+Inf" })).toBe(1);
    const no = decide({ tenant: "acme", outcome: "rejected" });
    expect(no(text, "count")).toBe(1);
    expect(no(text, "bucket", { le: "60" })).toBe(1);
    // The expiry counts as expired, never as a decision.
    expect(sampleValue(text, "runifold_approvals_expired_total", { tenant: "acme", outcome: "rejected" })).toBe(1);
    expect(sampleValue(text, "runifold_approvals_expired_total", { tenant: "acme", outcome: "expired" })).toBe(0);
    expect(sampleValue(text, "runifold_approvals_expired_total", { tenant: "other", outcome: "rejected" })).toBe(0);

    // Retention purging the runs takes nothing from the totals: counters never go back.
    await fx.sql`DELETE FROM runs WHERE id IN ${fx.sql([approved, rejected, expired])}`;
    const after = await scrape();
    expect(ok(after, "count")).toBe(1);
    expect(sampleValue(after, "runifold_approvals_expired_total", { tenant: "acme", outcome: "rejected" })).toBe(1);
  });
});
