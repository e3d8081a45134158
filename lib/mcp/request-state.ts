import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { SqlHandle } from "../../db/client";
import { McpError, RPC } from "./json-rpc";

/**
 * MRTR `requestState` (SEP-2322): opaque to the client, so it is attacker input. It is an HMAC over
 * who asked (tenant + key), which tool with which arguments, an expiry and a nonce; redeeming it
 * records the nonce, so each state works once, on any instance. The HMAC key lives in the store so
 * every instance shares it.
 */
const STATE_TTL_MS = 10 * 60_000;
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

type StateClaims = { t: string; k: string; tool: string; args: string; exp: number; n: string };

function digestArgs(args: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(args ?? {}))
    .digest("base64url");
}

export async function issueRequestState(
  sql: SqlHandle,
  params: { tenantId: string; keyId: string; tool: string; args: unknown },
): Promise<string> {
  const claims: StateClaims = {
    t: params.tenantId,
    k: params.keyId,
    tool: params.tool,
    args: digestArgs(params.args),
    exp: Date.now() + STATE_TTL_MS,
    n: randomBytes(12).toString("base64url"),
  };
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const mac = createHmac("sha256", await stateSecret(sql))
    .update(body)
    .digest("base64url");
  return `${body}.${mac}`;
}

const invalidState = () => new McpError(RPC.invalidParams, "Invalid or expired requestState");

/** Verifies and consumes a requestState; throws -32602 if forged, stale, for another call, or reused. */
export async function redeemRequestState(
  sql: SqlHandle,
  state: unknown,
  expected: { tenantId: string; keyId: string; tool: string; args: unknown },
): Promise<void> {
  if (typeof state !== "string" || state.length > 2_000) throw invalidState();
  const [body, mac] = state.split(".");
  if (!body || !mac) throw invalidState();
  const want = createHmac("sha256", await stateSecret(sql))
    .update(body)
    .digest();
  const got = Buffer.from(mac, "base64url");
  if (got.length !== want.length || !timingSafeEqual(got, want)) throw invalidState();
  let claims: StateClaims;
  try {
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as StateClaims;
  } catch {
    throw invalidState();
  }
  const matches =
    claims.t === expected.tenantId &&
    claims.k === expected.keyId &&
    claims.tool === expected.tool &&
    claims.args === digestArgs(expected.args) &&
    claims.exp > Date.now();
  if (!matches) throw invalidState();
  const consumed = await sql.unsafe(
    "INSERT INTO consumed_request_states (nonce, expires_at) VALUES ($1, to_timestamp($2 / 1000.0)) ON CONFLICT DO NOTHING RETURNING nonce",
    [claims.n, claims.exp],
  );
  if (consumed.length === 0) throw invalidState();
}
