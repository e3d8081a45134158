import { randomUUID } from "node:crypto";
import { createRun } from "@runifold/sdk";
import { jsonParam } from "@runifold/store";
import type postgres from "postgres";
import { addOperatorTenant, createOperator, type OperatorRole } from "../../db/queries/operators";
import { createTenant } from "../../db/queries/tenants";
import type { OperatorContext } from "../../lib/auth";
import { hashPassword } from "../../lib/auth";

/** An OperatorContext as a signed-in operator (or nobody) would have it, without a Next request. */
export function contextFor(sql: postgres.Sql, operatorId: string | null, headers: Record<string, string> = {}): OperatorContext {
  return {
    sql,
    sessionOperatorId: async () => operatorId,
    requestHeaders: async () =>
      new Headers({ host: "console.test", origin: "http://console.test", "sec-fetch-site": "same-origin", ...headers }),
    trustedOrigins: [],
  };
}

export async function makeOperator(
  sql: postgres.Sql,
  role: OperatorRole,
  tenantIds: string[] = [],
  password = "correct horse battery",
) {
  const operator = await createOperator(sql, {
    email: `${randomUUID().slice(0, 8)}@ops.test`,
    passwordHash: await hashPassword(password),
    role,
  });
  for (const tenantId of tenantIds) await addOperatorTenant(sql, { operatorId: operator.id, tenantId });
  return operator;
}

export async function makeTenant(sql: postgres.Sql, slug: string) {
  return createTenant(sql, { slug, name: slug.toUpperCase() });
}

/** A run parked on an input request `decision` (the approve-expense shape), without a worker. */
export async function makeWaitingRun(sql: postgres.Sql, tenantId: string): Promise<string> {
  const run = await createRun(sql, {
    tenantId,
    workflowName: "approve-expense",
    workflowVersion: 1,
    input: { expense_id: "E-1", amount: 5 },
  });
  const request = {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: "Approve?",
      requestedSchema: {
        type: "object",
        properties: { decision: { type: "string", enum: ["approve", "reject"] }, comment: { type: "string", maxLength: 10 } },
        required: ["decision"],
      },
    },
  };
  await sql.unsafe("INSERT INTO run_inputs (run_id, key, request) VALUES ($1, 'decision', $2::text::jsonb)", [
    run.id,
    jsonParam(request),
  ]);
  await sql.unsafe(
    `UPDATE runs SET status = 'waiting_input', claimable_at = NULL,
       wait_detail = jsonb_build_object('input', jsonb_build_object('keys', '["decision"]'::jsonb, 'since', now())) WHERE id = $1`,
    [run.id],
  );
  return run.id;
}
