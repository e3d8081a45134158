import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** One message as the SMTP server received it: the envelope's recipients, the Subject header and the decoded body. */
export type ReceivedMail = { to: string[]; subject: string; body: string };

export type SmtpInbox = {
  /** `smtp://127.0.0.1:<port>`, for RUNIFOLD_SMTP_URL. */
  url: string;
  mails: ReceivedMail[];
  close(): Promise<void>;
};

/** Undoes what nodemailer does to plain text: quoted-printable soft line breaks and =XX escapes. */
function decodeQuotedPrintable(text: string): string {
  return Buffer.from(
    text.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");
}

/**
 * A real SMTP server (the `smtp-server` package) on a loopback port that keeps every message it is
 * sent, so a test can read what the product mailed and to whom. No TLS, no authentication.
 */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (chunk: Buffer) => {
        raw += chunk.toString("latin1");
      });
      stream.on("end", () => {
        const split = raw.indexOf("\r\n\r\n");
        const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
        const subject = /^Subject: (.*)$/im.exec(head)?.[1] ?? "";
        mails.push({
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          subject,
          body: decodeQuotedPrintable(raw.slice(split + 4)),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    mails,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
