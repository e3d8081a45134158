import { createWorker, silentLogger, type Worker } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { waitFor } from "../helpers/wait-for";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";
import { approvalRegistry } from "./approval-workflow";

/**
 * Reminders (policy.remind.every, docs/approvals.md "Reminders"): driven by the store's clock like
 * escalation and expiry, each period one email to every approver who may still decide and has not,
 * and one `approval.reminded` audit row — with two workers racing for the wake-up, and never twice
 * for one period. A real SMTP server on loopback receives the mail.
 */
let fx: ApprovalFixture;
let smtp: SmtpInbox;
let second: Worker;

beforeAll(async () => {
  smtp = await startSmtpInbox();
  process.env.RUNIFOLD_SMTP_URL = smtp.url;
  process.env.RUNIFOLD_PUBLIC_URL = "https://runifold.example.test";
  fx = await startApprovalFixture();
  // A second worker on the same store: both race for every wake-up of the parked run.
  second = createWorker({ sql: fx.sql, registry: approvalRegistry, logger: silentLogger, pollMs: 50 });
  await second.start();
});
afterAll(async () => {
  delete process.env.RUNIFOLD_SMTP_URL;
  delete process.env.RUNIFOLD_PUBLIC_URL;
  await second?.stop(500);
  await fx?.close();
  await smtp?.close();
});

const reminders = () => smtp.mails.filter((mail) => mail.subject.startsWith("Reminder:"));
const reminded = (taskId: string) =>
  fx.sql<{ operator_id: string | null }[]>`
    SELECT operator_id FROM audit_events WHERE action = 'approval.reminded' AND fields->>'taskId' = ${taskId}`;
/** How often the run has parked on its approval: each wake-up that found it still open parks it again. */
const parks = async (taskId: string) =>
  (await fx.sql`SELECT 1 FROM run_events WHERE run_id = ${taskId} AND type = 'waiting_approval'`).length;
const waitParks = (taskId: string, count: number) =>
  waitFor(
    async () =>
      (await parks(taskId)) >= count &&
      (await fx.sql`SELECT 1 FROM runs WHERE id = ${taskId} AND status = 'waiting_signal'`).length === 1,
    (done) => done,
    { describe: `the run parked ${count} time(s)` },
  );

describe("approval reminders", { timeout: 60_000 }, () => {
  it("reminds each approver who may still decide once per period, by the store's clock", async () => {
    const taskId = await fx.start({ approvers: { groups: ["finance"] }, quorum: 2, remind: { every: "1h" } });
    await waitFor(
      () => smtp.mails.flatMap((mail) => mail.to),
      (to) => to.length === 2,
      { describe: "the opening emails" },
    );
    await waitParks(taskId, 1);
    // The first reminder is one period after it opened, and the run is claimable then.
    const [clock] = await fx.sql<{ ahead: number; claimable_ok: boolean }[]>`
      SELECT extract(epoch FROM a.next_remind_at - a.opened_at)::float8 AS ahead, r.claimable_at = a.next_remind_at AS claimable_ok
      FROM approvals a JOIN runs r ON r.id = a.run_id WHERE a.run_id = ${taskId}`;
    expect(clock).toEqual({ ahead: 3600, claimable_ok: true });

    expect((await fx.decide(fx.b.token, taskId, "approve")).status).toBe(201);
    // The store's clock reaches the reminder.
    await fx.sql`UPDATE approvals SET next_remind_at = now() - interval '1 second' WHERE run_id = ${taskId}`;
    await fx.sql`UPDATE runs SET claimable_at = now() WHERE id = ${taskId} AND status = 'waiting_signal'`;
    await waitFor(reminders, (mails) => mails.length === 1, { describe: "the reminder" });
    // B decided already; A started the run (separation of duties); C is the one left in finance.
    expect(reminders()[0]).toMatchObject({ to: ["c@acme.test"] });
    expect(reminders()[0]?.body).toContain("https://runifold.example.test/approvals");
    expect(await reminded(taskId)).toEqual([{ operator_id: null }]);
    await waitParks(taskId, 2);
    const [next] = await fx.sql<{ ahead: number }[]>`
      SELECT extract(epoch FROM next_remind_at - now())::float8 AS ahead FROM approvals WHERE run_id = ${taskId}`;
    expect(next?.ahead).toBeGreaterThan(3500);

    // Woken again within the same period (a stray wake-up, a second worker, a restart): no second reminder.
    await fx.sql`UPDATE runs SET claimable_at = now() WHERE id = ${taskId} AND status = 'waiting_signal'`;
    await waitParks(taskId, 3);
    expect(reminders()).toHaveLength(1);
    expect(await reminded(taskId)).toHaveLength(1);

    // The next period reminds again; once C decides, no one is left to remind and the run ends.
    await fx.sql`UPDATE approvals SET next_remind_at = now() - interval '1 second' WHERE run_id = ${taskId}`;
    await fx.sql`UPDATE runs SET claimable_at = now() WHERE id = ${taskId} AND status = 'waiting_signal'`;
    await waitFor(reminders, (mails) => mails.length === 2, { describe: "the second reminder" });
    expect(await reminded(taskId)).toHaveLength(2);
    await waitParks(taskId, 4);
    expect((await fx.decide(fx.c.token, taskId, "approve")).status).toBe(201);
    await waitFor(
      () => fx.sql`SELECT 1 FROM runs WHERE id = ${taskId} AND status = 'completed'`,
      (rows) => rows.length === 1,
      { describe: "the run to finish" },
    );
    expect(reminders()).toHaveLength(2);
  });
});
