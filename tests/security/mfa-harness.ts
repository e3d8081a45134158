import type { Account, User } from "next-auth";
import type { JWT } from "next-auth/jwt";
import { generate } from "otplib";
import type postgres from "postgres";
import { AuthenticationStepRequired, beginMfaEnrolment, confirmMfaEnrolment } from "../../lib/auth";
import { buildAuthOptions } from "../../lib/auth/web";
import { readEnv } from "../../lib/env";
import { handleRegistrationRequest } from "../../lib/oauth";
import { contextFor } from "../ui/helpers";

/** The seal key of the MFA suites (what RUNIFOLD_MFA_KEY / NEXTAUTH_SECRET is on a server). */
export const KEY = "mfa-test-key-material-0123456789";
export const PASSWORD = "correct horse battery";

const credentialsAccount = { provider: "credentials", type: "credentials", providerAccountId: "x" } as Account;

/** Which authentication step an error asks for (or the error itself, to show in a failed assertion). */
export const stepOf = (error: unknown) => (error instanceof AuthenticationStepRequired ? error.step : String(error));

/**
 * The MFA suites' helpers over the database a suite opens in its beforeAll (`sql()` is read at
 * each call): a password sign-in through the real next-auth callbacks, the context requireOperator
 * then sees, an enrolment, an OAuth client and an operator's audit actions.
 */
export function mfaHarness(sql: () => postgres.Sql) {
  const options = () => buildAuthOptions(readEnv({ NEXTAUTH_SECRET: KEY }), { sql });

  /** What next-auth does for the password form: the provider's authorize, then the jwt callback. */
  async function passwordSignIn(email: string, password: string, address = "10.9.0.1"): Promise<JWT | null> {
    const opts = options();
    const provider = opts.providers.find((p) => p.id === "credentials") as unknown as {
      options: { authorize(credentials: Record<string, string>, req: unknown): Promise<User | null> };
    };
    const user = await provider.options.authorize({ email, password }, { headers: { "x-real-ip": address } });
    if (!user) return null;
    return (await opts.callbacks?.jwt?.({ token: {} as JWT, user, account: credentialsAccount, trigger: "signIn" })) as JWT;
  }

  /** The context of a request carrying `token` (as webContext reads it); `adminMfaRequired` as RUNIFOLD_ADMIN_MFA says. */
  function sessionContext(token: JWT, adminMfaRequired = false) {
    return {
      ...contextFor(sql(), token.sub ?? null),
      adminMfaRequired,
      sessionClaims: async () => ({ sessionId: token.sid as string, sessionVersion: token.sv as number }),
    };
  }

  /** Enrols `operatorId` with a fresh secret; returns it and the recovery codes. */
  async function enrol(operatorId: string, email: string) {
    const { secret } = await beginMfaEnrolment(sql(), { operatorId, accountName: email, keyMaterial: KEY });
    const { recoveryCodes } = await confirmMfaEnrolment(sql(), {
      operatorId,
      sessionId: null,
      code: await generate({ secret }),
      clientAddress: null,
      keyMaterial: KEY,
    });
    // The enrolment spent the current step: a test's next code of the same 30 s must still count.
    await sql()`UPDATE operators SET mfa_last_step = mfa_last_step - 1 WHERE id = ${operatorId}`;
    return { secret, recoveryCodes };
  }

  /** A registered OAuth client (public, loopback redirect), as an MCP client registers itself. */
  async function registerClient(name: string): Promise<string> {
    const registered = await handleRegistrationRequest(
      sql(),
      new Request("http://console.test/api/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: name,
          redirect_uris: ["http://127.0.0.1:7777/cb"],
          token_endpoint_auth_method: "none",
        }),
      }),
    );
    return ((await registered.json()) as { client_id: string }).client_id;
  }

  /** The actions of the audit trail that name the operator (as actor or as a field), oldest first. */
  async function auditActions(operatorId: string): Promise<string[]> {
    const rows = await sql()<{ action: string }[]>`
      SELECT action FROM audit_events WHERE operator_id = ${operatorId} OR fields->>'operatorId' = ${operatorId} ORDER BY id`;
    return rows.map((row) => row.action);
  }

  return { passwordSignIn, sessionContext, enrol, registerClient, auditActions };
}
