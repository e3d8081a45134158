import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { InputResponse } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { McpError, RPC } from "./json-rpc";

/**
 * MRTR `requestState` (SEP-2322): opaque to the client, so it is attacker input. It is an HMAC over
 * who asked (tenant + key), which tool with which arguments, an expiry and a nonce; redeeming it
 * records the nonce, so each state works once, on any instance. The HMAC key lives in the store so
 * every instance shares it.
 */
const STATE_TTL_MS = 10 * 60_000;
/** Room for the answers a state carries between rounds; the body limit (1 MiB) bounds it anyway. */
const MAX_STATE_CHARS = 32_768;
let cachedSecret: Promise<Buffer> | undefined;

async function stateSecret(sql: SqlHandle): Promise<Buffer> {
  cachedSecret ??= (async () => {
    const rows = await sql.unsafe<{ value: string }[]>(
      `INSERT INTO server_secrets (name, value) VALUES ('mrtr-request-state', $1)
       ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING value`,
      [randomBytes(32).toString("base64url")],
    );
    return Buffer.from(rows[0]?.value ?? "", "base64url");
  })().catch((error) => {
    cachedSecret = undefined;
    throw error;
  });
  return cachedSecret;
}

/**
 * `a`: the preflight answers accepted in earlier MRTR rounds. They travel here, under the MAC,
 * because "the server processing the retry does not need any information beyond what is directly
 * present in the retry request" (mrtr.mdx "Basic Workflow"), and a retry answers only the keys it
 * was just asked for.
 * `r`: the run an ordinary (non-task) call started and whose questions this round asks
 * (modern/ordinary-call.ts): the retry answers them through provideInput and goes on waiting for that
 * run instead of starting another.
 */
export type StateClaims = {
  t: string;
  k: string;
  tool: string;
  args: string;
  exp: number;
  n: string;
  a?: Record<string, InputResponse>;
  r?: string;
};
export type StateCall = { tenantId: string; keyId: string; tool: string; args: unknown };

function digestArgs(args: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(args ?? {}))
    .digest("base64url");
}

/** The claims of a fresh requestState for this call: expires STATE_TTL_MS after `now`, with a new nonce. */
export function requestStateClaims(
  call: StateCall,
  now = Date.now(),
  answers?: Record<string, InputResponse>,
  runId?: string,
): StateClaims {
  return {
    ...(answers && Object.keys(answers).length > 0 ? { a: answers } : {}),
    ...(runId ? { r: runId } : {}),
    t: call.tenantId,
    k: call.keyId,
    tool: call.tool,
    args: digestArgs(call.args),
    exp: now + STATE_TTL_MS,
    n: randomBytes(12).toString("base64url"),
  };
}

/** `<base64url JSON claims>.<base64url HMAC-SHA256 of that text>`. */
export function signRequestState(secret: Buffer, claims: StateClaims): string {
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const mac = createHmac("sha256", secret).update(body).digest("base64url");
  return `${body}.${mac}`;
}

/**
 * The claims of `state` if it carries our MAC and was issued for exactly this call (tenant, key, tool,
 * arguments) and has not expired at `now`; undefined for anything else. It does not consume the nonce.
 */
export function verifyRequestState(
  secret: Buffer,
  state: unknown,
  expected: StateCall,
  now = Date.now(),
): StateClaims | undefined {
  if (typeof state !== "string" || state.length > MAX_STATE_CHARS) return undefined;
  const [body, mac] = state.split(".");
  if (!body || !mac) return undefined;
  const want = createHmac("sha256", secret).update(body).digest();
  const got = Buffer.from(mac, "base64url");
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  let claims: StateClaims;
  try {
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as StateClaims;
  } catch {
    return undefined;
  }
  const matches =
    claims.t === expected.tenantId &&
    claims.k === expected.keyId &&
    claims.tool === expected.tool &&
    claims.args === digestArgs(expected.args) &&
    claims.exp > now;
  return matches ? claims : undefined;
}

export async function issueRequestState(
  sql: SqlHandle,
  params: StateCall,
  answers?: Record<string, InputResponse>,
  runId?: string,
): Promise<string> {
  return (await issueRequestStateWithClaims(sql, params, answers, runId)).state;
}

/** issueRequestState, with the claims it signed (the nonce and expiry a caller records). */
export async function issueRequestStateWithClaims(
  sql: SqlHandle,
  params: StateCall,
  answers?: Record<string, InputResponse>,
  runId?: string,
): Promise<{ state: string; claims: StateClaims }> {
  const claims = requestStateClaims(params, Date.now(), answers, runId);
  return { state: signRequestState(await stateSecret(sql), claims), claims };
}

const invalidState = () => new McpError(RPC.invalidParams, "Invalid or expired requestState");

/** Verifies and consumes a requestState (its claims); throws -32602 if forged, stale, for another call, or reused. */
export async function redeemRequestState(sql: SqlHandle, state: unknown, expected: StateCall): Promise<StateClaims> {
  if (typeof state !== "string" || state.length > MAX_STATE_CHARS) throw invalidState(); // before any store round trip
  const claims = verifyRequestState(await stateSecret(sql), state, expected);
  if (!claims) throw invalidState();
  const consumed = await sql.unsafe(
    "INSERT INTO consumed_request_states (nonce, expires_at) VALUES ($1, to_timestamp($2 / 1000.0)) ON CONFLICT DO NOTHING RETURNING nonce",
    [claims.n, claims.exp],
  );
  if (consumed.length === 0) throw invalidState();
  return claims;
}
