import { createTransport } from "nodemailer";

/**
 * The one place that knows how Runifold sends email (nodemailer over SMTP): the approvals' emails
 * (approvals/mail.ts, from the worker) and the credential-change notices (lib/auth, from the web
 * process and the CLI) both read their settings and open their transport here, so both follow the
 * same variables and the same time limits.
 */
export type MailSettings = { smtpUrl: string; from: string };

/** RUNIFOLD_SMTP_URL (e.g. `smtp://user:pass@mail.example.com:587`) turns email on; unset, nothing is sent. */
export function mailSettings(env: Record<string, string | undefined> = process.env): MailSettings | undefined {
  if (!env.RUNIFOLD_SMTP_URL) return undefined;
  return { smtpUrl: env.RUNIFOLD_SMTP_URL, from: env.RUNIFOLD_MAIL_FROM || "runifold@localhost" };
}

/**
 * Time limits well under nodemailer's defaults (2 min to connect, 10 min of socket silence): mail
 * is sent best effort after a change committed, by a worker or a request that waits for it, and a
 * mail server that hangs must not hold either for minutes. A query parameter of the URL (for
 * example `?connectionTimeout=30000`) still overrides them.
 */
const LIMITS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as const;

/** A transport for one batch of messages; close it when done. */
export function createMailTransport(smtpUrl: string) {
  return createTransport({ url: smtpUrl, ...LIMITS });
}
