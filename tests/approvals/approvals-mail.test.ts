import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/wait-for";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";

/** A real SMTP server on loopback receives the approvers' emails (docs/approvals.md "Email"). */
type Mail = { to: string[]; body: string };
let fx: ApprovalFixture;
let smtp: SMTPServer;
const inbox: Mail[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, callback) {
      let body = "";
      stream.on("data", (chunk: Buffer) => {
        body += chunk.toString("utf8");
      });
      stream.on("end", () => {
        // Quoted-printable, as nodemailer sends text: soft line breaks and =XX escapes undone.
        const text = body
          .replace(/=\r\n/g, "")
          .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
        inbox.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), body: text });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", () => resolve()));
  fx = await startApprovalFixture();
});
afterAll(async () => {
  delete process.env.RUNIFOLD_SMTP_URL;
  delete process.env.RUNIFOLD_PUBLIC_URL;
  await fx?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

const sentTo = () => inbox.flatMap((mail) => mail.to).sort();

describe("approval email", { timeout: 60_000 }, () => {
  it("sends nothing with RUNIFOLD_SMTP_URL unset", async () => {
    delete process.env.RUNIFOLD_SMTP_URL;
    const taskId = await fx.start({ approvers: { groups: ["finance"] } });
    await waitFor(
      () => fx.sql`SELECT 1 FROM runs WHERE id = ${taskId} AND status = 'waiting_signal'`,
      (rows) => rows.length === 1,
      { describe: "the run to wait" },
    );
    expect(inbox).toEqual([]);
  });

  it("mails each eligible approver (never the requester) when it opens, and the escalation's approvers when it escalates", async () => {
    process.env.RUNIFOLD_SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
    process.env.RUNIFOLD_PUBLIC_URL = "https://runifold.example.test";
    const taskId = await fx.start({
      approvers: { groups: ["finance"] },
      quorum: 2,
      escalate: { after: "1h", to: { groups: ["cto"] } },
    });
    await waitFor(sentTo, (to) => to.length === 2, { describe: "two emails" });
    expect(sentTo()).toEqual(["b@acme.test", "c@acme.test"]);
    expect(inbox[0]?.body).toContain("Pay 1200 EUR?");
    expect(inbox[0]?.body).toContain("https://runifold.example.test/approvals");
    expect(inbox[0]?.body).toContain(taskId);

    await fx.sql`UPDATE approvals SET escalates_at = now() - interval '1 second' WHERE run_id = ${taskId}`;
    await fx.sql`UPDATE runs SET claimable_at = now() WHERE id = ${taskId} AND status = 'waiting_signal'`;
    await waitFor(sentTo, (to) => to.length === 3, { describe: "the escalation's email" });
    expect(inbox[2]).toMatchObject({ to: ["e@acme.test"] });
    expect(inbox[2]?.body).toContain("Escalated");
  });
});
