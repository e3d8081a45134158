import { createLogger, createMailTransport, mailSettings } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { insertAuditEvent } from "../../db/queries/audit-events";
import { findOperatorById } from "../../db/queries/operators";
import { type CredentialChange, noticeSubject, noticeText } from "./credential-notice-text";

export type { CredentialChange } from "./credential-notice-text";

/**
 * The one front door for telling an operator, by email, that the authentication details of their
 * account changed (ASVS 4.0.3 2.2.3; docs/security.md "Credential-change notices"). Every path that
 * changes them calls it after the change is stored: lib/admin (password change and reset, an
 * admin's MFA reset, API keys), lib/auth (MFA on and off, a recovery code used) and lib/oauth (a
 * client authorized). The email goes to the account's own address.
 *
 * Best effort, and never part of the change: it never throws, so a mail server that is down or
 * refuses the message cannot fail or undo what was done; it waits at most NOTICE_DEADLINE_MS. With
 * RUNIFOLD_SMTP_URL unset it does nothing. Each notice it tries is audited (`auth.notice.sent` or
 * `auth.notice.failed`, actor `system:credential-notice`, the account as `targetOperatorId`); a
 * failure is also logged, with the error's code and message and never the message's contents.
 */
export type CredentialNotice = {
  operatorId: string;
  change: CredentialChange;
  /** The client address of the request that made the change, when the path knows it. */
  clientAddress?: string | null;
  /** Whether the account holder did it themselves (`self`) or an administrator did (`admin`). */
  by: "self" | "admin";
  /** Non-secret particulars for the body (a key's name, a client's name, recovery codes left). */
  details?: string[];
};

export type NoticeOutcome = "off" | "sent" | "failed";

/** How long a change waits for its notice at most: a hanging mail server costs a request this, no more. */
export const NOTICE_DEADLINE_MS = 15_000;

const log = createLogger("credential-notice", (process.env.RUNIFOLD_LOG_LEVEL as "info" | undefined) ?? "info");
const ACTOR = "system:credential-notice";

export async function noticeCredentialChange(
  sql: SqlHandle,
  notice: CredentialNotice,
  env: Record<string, string | undefined> = process.env,
): Promise<NoticeOutcome> {
  const settings = mailSettings(env);
  if (!settings) return "off";
  const at = new Date();
  let outcome: NoticeOutcome = "sent";
  let errorCode: string | undefined;
  try {
    const operator = await findOperatorById(sql, notice.operatorId);
    if (!operator) return "off";
    const text = noticeText({
      change: notice.change,
      name: operator.name || operator.email,
      at,
      clientAddress: notice.clientAddress ?? null,
      by: notice.by === "self" ? "a sign-in to your account" : "an administrator",
      details: notice.details,
      publicUrl: env.RUNIFOLD_PUBLIC_URL,
    });
    const transport = createMailTransport(settings.smtpUrl);
    try {
      await withDeadline(
        transport.sendMail({ from: settings.from, to: operator.email, subject: noticeSubject(notice.change), text, date: at }),
        NOTICE_DEADLINE_MS,
      );
    } finally {
      transport.close();
    }
  } catch (error) {
    outcome = "failed";
    errorCode = (error as { code?: unknown }).code === undefined ? "error" : String((error as { code?: unknown }).code);
    log.warn("credential-change notice not sent", {
      operatorId: notice.operatorId,
      change: notice.change,
      code: errorCode,
      error: (error as Error).message,
    });
  }
  await record(sql, outcome, notice, errorCode);
  return outcome;
}

async function record(sql: SqlHandle, outcome: NoticeOutcome, notice: CredentialNotice, errorCode?: string): Promise<void> {
  if (outcome === "sent")
    log.info("auth.notice.sent", { actor: ACTOR, targetOperatorId: notice.operatorId, change: notice.change });
  try {
    await insertAuditEvent(sql, {
      actor: ACTOR,
      operatorId: null,
      action: outcome === "sent" ? "auth.notice.sent" : "auth.notice.failed",
      tenantId: null,
      address: null,
      fields: { targetOperatorId: notice.operatorId, change: notice.change, ...(errorCode ? { error: errorCode } : {}) },
    });
  } catch (error) {
    log.error("audit event not stored", { action: `auth.notice.${outcome}`, error: (error as Error).message });
  }
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer from the mail server in ${ms} ms`), { code: "ETIMEDOUT" })),
      ms,
    );
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
