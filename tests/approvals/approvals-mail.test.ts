import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { waitFor } from "../helpers/wait-for";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";

/** A real SMTP server on loopback receives the approvers' emails (docs/approvals.md "Email"). */
let fx: ApprovalFixture;
let smtp: SmtpInbox;

beforeAll(async () => {
  smtp = await startSmtpInbox();
  fx = await startApprovalFixture();
});
afterAll(async () => {
  delete process.env.RUNIFOLD_SMTP_URL;
  delete process.env.RUNIFOLD_PUBLIC_URL;
  await fx?.close();
  await smtp?.close();
});

const sentTo = () => smtp.mails.flatMap((mail) => mail.to).sort();

describe("approval email", { timeout: 60_000 }, () => {
  it("sends nothing with RUNIFOLD_SMTP_URL unset", async () => {
    delete process.env.RUNIFOLD_SMTP_URL;
    const taskId = await fx.start({ approvers: { groups: ["finance"] } });
    await fx.parked(taskId);
    expect(smtp.mails).toEqual([]);
  });

  it("mails each eligible approver (never the requester) when it opens, and the escalation's approvers when it escalates", async () => {
    process.env.RUNIFOLD_SMTP_URL = smtp.url;
    process.env.RUNIFOLD_PUBLIC_URL = "https://runifold.example.test";
    const taskId = await fx.start({
      approvers: { groups: ["finance"] },
      quorum: 2,
      escalate: { after: "1h", to: { groups: ["cto"] } },
    });
    await waitFor(sentTo, (to) => to.length === 2, { describe: "two emails" });
    expect(sentTo()).toEqual(["b@acme.test", "c@acme.test"]);
    expect(smtp.mails[0]?.body).toContain("Pay 1200 EUR?");
    expect(smtp.mails[0]?.body).toContain("https://runifold.example.test/approvals");
    expect(smtp.mails[0]?.body).toContain(taskId);

    await fx.sql`UPDATE approvals SET escalates_at = now() - interval '1 second' WHERE run_id = ${taskId}`;
    await fx.sql`UPDATE runs SET claimable_at = now() WHERE id = ${taskId} AND status = 'waiting_signal'`;
    await waitFor(sentTo, (to) => to.length === 3, { describe: "the escalation's email" });
    expect(smtp.mails[2]).toMatchObject({ to: ["e@acme.test"] });
    expect(smtp.mails[2]?.subject).toMatch(/^Escalated: /);
  });
});
