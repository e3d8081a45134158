import type { SqlHandle } from "@runifold/store";
import type { Principal } from "../auth";

/**
 * The person behind a bearer credential, for approvals: every decision names a person. An OAuth
 * access token acts for the operator who granted it; an API key for the operator who minted it
 * (`created_by_operator_id`: an operator's own API token). A key minted by the CLI or a seed has no
 * person behind it and cannot decide (undefined). Membership and enablement are checked again by
 * decideApproval under its lock.
 */
export async function operatorOfPrincipal(sql: SqlHandle, principal: Principal): Promise<string | undefined> {
  return operatorOfKeyId(sql, principal.keyId);
}

/** The same, from the key id a principal (and a task's binding) carries: `oauth:<grant id>` or an API key's id. */
export async function operatorOfKeyId(sql: SqlHandle, keyId: string): Promise<string | undefined> {
  const grant = /^oauth:([0-9a-f-]{36})$/i.exec(keyId)?.[1];
  const rows = grant
    ? await sql.unsafe<{ id: string }[]>("SELECT operator_id::text AS id FROM oauth_grants WHERE id = $1::uuid", [grant])
    : await sql.unsafe<{ id: string | null }[]>("SELECT created_by_operator_id::text AS id FROM api_keys WHERE id = $1", [keyId]);
  return rows[0]?.id ?? undefined;
}
