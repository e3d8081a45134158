import { randomBytes } from "node:crypto";
import type { SqlHandle } from "../../db/client";
import { listApiKeys } from "../../db/queries/api-keys";
import { countOperators, createOperator } from "../../db/queries/operators";
import { findActiveRoute, insertRouteRevision } from "../../db/queries/routes";
import { createTenant, findTenantBySlug } from "../../db/queries/tenants";
import { routeFromWorkflow } from "../../lib/admin";
import { createApiKey, hashPassword } from "../../lib/auth";
import { approveExpense } from "./approve-expense";
import { CONFORMANCE_TOOLS } from "./conformance";
import { generateReport } from "./generate-report";

export type SeedResult = { created: boolean; apiKey?: string; operator?: { email: string; password: string } };

/**
 * The demo: tenant-acme with durable_report and approve_expense, and the conformance tenant with
 * the suite's seven fixture tools. Idempotent — existing tenants, routes and keys are left alone;
 * a demo API key is minted (and returned, once) only when tenant-acme has none.
 */
export async function seedDemo(sql: SqlHandle): Promise<SeedResult> {
  let created = false;
  const ensureTenant = async (slug: string, name: string) => {
    const existing = await findTenantBySlug(sql, slug);
    if (existing) return existing;
    created = true;
    return createTenant(sql, { slug, name });
  };
  const acme = await ensureTenant("tenant-acme", "Acme Corp");
  const conformance = await ensureTenant("conformance", "MCP conformance fixtures");

  const routes = [
    routeFromWorkflow(generateReport, {
      tenantId: acme.id,
      toolName: "durable_report",
      taskSupport: "optional",
      title: "Durable report",
    }),
    routeFromWorkflow(approveExpense, {
      tenantId: acme.id,
      toolName: "approve_expense",
      taskSupport: "optional",
      title: "Approve expense",
    }),
    ...CONFORMANCE_TOOLS.map((fixture) =>
      routeFromWorkflow(fixture.workflow, { tenantId: conformance.id, toolName: fixture.tool, taskSupport: fixture.taskSupport }),
    ),
  ];
  for (const route of routes) {
    if (await findActiveRoute(sql, route.tenantId, route.toolName)) continue;
    await insertRouteRevision(sql, route);
    created = true;
  }

  let apiKey: string | undefined;
  if ((await listApiKeys(sql, acme.id)).length === 0) {
    apiKey = (await createApiKey(sql, { tenantId: acme.id, name: "demo" })).token;
    created = true;
  }
  // First run: an admin to sign in to the console with (printed once by `npm start`).
  let operator: SeedResult["operator"];
  if ((await countOperators(sql)) === 0) {
    operator = { email: "admin@runifold.local", password: randomBytes(12).toString("base64url") };
    await createOperator(sql, {
      email: operator.email,
      passwordHash: await hashPassword(operator.password),
      role: "admin",
      name: "Admin",
    });
    created = true;
  }
  return { created, ...(apiKey ? { apiKey } : {}), ...(operator ? { operator } : {}) };
}
