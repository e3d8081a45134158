import { randomBytes } from "node:crypto";
import { describeDefinition, publishDefinitions } from "@runifold/sdk";
import type { SqlHandle } from "@runifold/store";
import { listApiKeys } from "../../db/queries/api-keys";
import { countOperators } from "../../db/queries/operators";
import { findActiveRoute } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import {
  type AdminContext,
  createKey,
  createOperator,
  createTenant,
  definitionsFromStore,
  SEED_ACTOR,
  saveRoute,
} from "../../lib/admin";
import { approveExpense } from "./approve-expense";
import { CONFORMANCE_TOOLS } from "./conformance";
import { CONFORMANCE_CONTENT_TOOLS } from "./conformance-content";
import { CONFORMANCE_ROUND_TOOLS } from "./conformance-rounds";
import { generateReport } from "./generate-report";
import { shippedWorkflows } from "./index";

export type SeedResult = { created: boolean; apiKey?: string; operator?: { email: string; password: string } };

/**
 * What the demo seeds besides its showcase: `conformance` adds the conformance tenant with the MCP
 * conformance suite's fixture tools. `npm start` (RUNIFOLD_SEED=demo) asks for none: review F22 found
 * the fixtures filling the routes page, the workers' list and the forms' default tenant. The test
 * stacks and the suites that call this directly keep them (the default here).
 */
export type DemoSeedOptions = { fixtures?: "conformance" | "none" };

/**
 * The demo: tenant-acme with durable_report and approve_expense, and (unless `fixtures: "none"`) the
 * conformance tenant with the suite's fixture tools (the tasks-* seven, then those of the tools-*,
 * elicitation-*, input-required-result-* and json-schema scenarios). Idempotent — existing tenants,
 * routes and keys are left alone; a demo API key is minted (and returned, once) only when tenant-acme
 * has none. Everything is created through lib/admin, with the console's and the CLI's rules, as actor `seed`.
 */
export async function seedDemo(sql: SqlHandle, options: DemoSeedOptions = {}): Promise<SeedResult> {
  const withFixtures = (options.fixtures ?? "conformance") === "conformance";
  const ctx: AdminContext = { sql, actor: SEED_ACTOR };
  // Publish the demo's definitions as its worker will, so the routes bind to store definitions like
  // any team's (a worker starting later finds them unchanged).
  await publishDefinitions(sql, shippedWorkflows.all().map(describeDefinition), "seed");
  const resolveDefinition = definitionsFromStore(sql);
  let created = false;
  const ensureTenant = async (slug: string, name: string) => {
    const existing = await findTenantBySlug(sql, slug);
    if (existing) return existing;
    created = true;
    return createTenant(ctx, { slug, name });
  };
  const acme = await ensureTenant("tenant-acme", "Acme Corp");
  const conformance = withFixtures ? await ensureTenant("conformance", "MCP conformance fixtures") : undefined;

  const fixtures = conformance ? conformanceRoutes(conformance.id) : [];
  const routes = [
    { tenantId: acme.id, toolName: "durable_report", workflow: generateReport, taskSupport: "optional", title: "Durable report" },
    {
      tenantId: acme.id,
      toolName: "approve_expense",
      workflow: approveExpense,
      taskSupport: "optional",
      title: "Approve expense",
    },
    ...fixtures,
  ] as const;
  for (const { workflow, ...route } of routes) {
    if (await findActiveRoute(sql, route.tenantId, route.toolName)) continue;
    await saveRoute({ ...ctx, resolveDefinition }, { ...route, workflowName: workflow.name, workflowVersion: workflow.version });
    created = true;
  }

  let apiKey: string | undefined;
  if ((await listApiKeys(sql, acme.id)).length === 0) {
    apiKey = (await createKey(ctx, { tenantId: acme.id, name: "demo" })).token;
    created = true;
  }
  // First run: an admin to sign in to the console with (printed once by `npm start`).
  let operator: SeedResult["operator"];
  if ((await countOperators(sql)) === 0) {
    operator = { email: "admin@runifold.local", password: randomBytes(12).toString("base64url") };
    await createOperator(ctx, { email: operator.email, password: operator.password, role: "admin", name: "Admin" });
    created = true;
  }
  return { created, ...(apiKey ? { apiKey } : {}), ...(operator ? { operator } : {}) };
}

/** The conformance tenant's routes: the fixture tools the MCP conformance scenarios call. */
function conformanceRoutes(tenantId: string) {
  return [
    ...CONFORMANCE_TOOLS.map((fixture) => ({
      tenantId,
      toolName: fixture.tool,
      workflow: fixture.workflow,
      taskSupport: fixture.taskSupport,
      title: undefined,
    })),
    ...CONFORMANCE_CONTENT_TOOLS.map((fixture) => ({
      tenantId,
      toolName: fixture.tool,
      workflow: fixture.workflow,
      taskSupport: "optional" as const,
      title: undefined,
    })),
    ...CONFORMANCE_ROUND_TOOLS.map(({ tool, workflow, ...rest }) => ({
      tenantId,
      toolName: tool,
      workflow,
      taskSupport: "optional" as "optional" | "required",
      title: undefined,
      ...rest,
    })),
  ];
}
