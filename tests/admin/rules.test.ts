import { readFileSync } from "node:fs";
import path from "node:path";
import { describeDefinition, publishDefinitions } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { findOperatorByEmail } from "../../db/queries/operators";
import { listRouteRevisions } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import {
  type AdminContext,
  createOperator,
  createTenant,
  definitionsFromStore,
  type ResolveDefinition,
  SLUG_PATTERN,
  saveRoute,
  TOOL_NAME_PATTERN,
  toolInputSchema,
  ZChangePassword,
} from "../../lib/admin";
import { AppError } from "../../lib/errors";
import { saveRouteAction } from "../../lib/ui/actions/route-actions";
import { createOperatorAction, createTenantAction } from "../../lib/ui/actions/tenant-actions";
import { shippedWorkflows } from "../../workflows/demo";
import { generateReport } from "../../workflows/demo/generate-report";
import { seedDemo } from "../../workflows/demo/seed";
import { lastJson, runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { ROOT } from "../helpers/processes";
import { contextFor, makeOperator } from "../ui/helpers";

// The console (lib/ui/actions), the CLI (a real process) and lib/admin itself must accept and
// refuse the same values, and build the same rows: these are the rules that used to differ.

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let env: Record<string, string>;
let service: AdminContext;
let consoleCtx: ReturnType<typeof contextFor>;
let tenantId: string;
const resolveDefinition: ResolveDefinition = (name, version) => definitionsFromStore(sql)(name, version);

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  env = { DATABASE_URL: db.url, RUNIFOLD_LOG_LEVEL: "info" };
  service = { sql, actor: { kind: "cli", user: "test", host: "rules" } };
  consoleCtx = contextFor(sql, (await makeOperator(sql, "admin")).id);
  tenantId = (await createTenant(service, { slug: "rules", name: "Rules" })).id;
  // What a worker serving the demo module publishes when it registers: console and CLI bind to it.
  await publishDefinitions(sql, shippedWorkflows.all().map(describeDefinition), "test-worker");
});
afterAll(async () => {
  await db.drop();
});

/** The AppError a call throws (or fails the test). */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("one rule set for console, CLI and seed (lib/admin)", { timeout: 120_000 }, () => {
  it("accepts and refuses the same tenant slugs everywhere (1–63 chars, a letter or digit at each end)", async () => {
    // Once the CLI took 1 character and refused a trailing dash, the console the opposite.
    const accepted = (caller: string) => [caller, `${caller}-1`, `${caller}${"x".repeat(62)}`];
    const refused = ["a-", "-a", "Bad_Slug", "a_b", "", "x".repeat(64)];

    for (const slug of accepted("s")) expect((await createTenant(service, { slug })).slug).toBe(slug);
    for (const slug of accepted("c")) expect((await createTenantAction(consoleCtx, { slug, name: slug })).slug).toBe(slug);
    const cliAccepted = await Promise.all(accepted("k").map((slug) => runCli(["tenants", "create", slug], env)));
    expect(cliAccepted.map((run) => run.code)).toEqual([0, 0, 0]);

    for (const slug of refused) {
      expect((await refusal(createTenant(service, { slug }))).code).toBe("bad_request");
      expect((await refusal(createTenantAction(consoleCtx, { slug, name: "N" }))).code).toBe("bad_request");
    }
    const cliRefused = await Promise.all(["a-", "Bad_Slug"].map((slug) => runCli(["tenants", "create", slug], env)));
    for (const run of cliRefused)
      expect(run).toMatchObject({ code: 4, stderr: expect.stringContaining("slug: 1–63 lower-case") });
    for (const slug of [...refused, "a-"]) expect(await findTenantBySlug(sql, slug)).toBeUndefined();
  });

  it("keeps the console forms' HTML patterns equal to the rules", () => {
    const form = (file: string) => readFileSync(path.join(ROOT, "app/(ui)", file), "utf8");
    expect(form("tenants/admin-forms.tsx")).toContain(`pattern="${SLUG_PATTERN}"`);
    expect(form("routes/route-form.tsx")).toContain(`pattern="${TOOL_NAME_PATTERN}"`);
    // An HTML pattern is compiled with the `v` flag: it must mean the same there.
    for (const slug of ["a", "a-b", "a-", "Bad_Slug"]) {
      expect(new RegExp(`^(?:${SLUG_PATTERN})$`, "v").test(slug)).toBe(new RegExp(`^(?:${SLUG_PATTERN})$`).test(slug));
    }
  });

  it("maps a duplicate to the same conflict in service, console and CLI", async () => {
    const message = 'Tenant "rules" already exists';
    expect(await refusal(createTenant(service, { slug: "rules" }))).toMatchObject({ code: "conflict", message });
    expect(await refusal(createTenantAction(consoleCtx, { slug: "rules", name: "R" }))).toMatchObject({
      code: "conflict",
      message,
    });
    expect(await runCli(["tenants", "create", "rules"], env)).toMatchObject({ code: 4, stderr: `error: ${message}\n` });

    const operator = { email: "dup@ops.test", password: "long enough password", role: "operator" as const };
    await createOperator(service, operator);
    const again = { ...operator, email: " DUP@ops.test " }; // the same email, case-insensitively
    expect((await refusal(createOperator(service, again))).code).toBe("conflict");
    expect((await refusal(createOperatorAction(consoleCtx, again))).code).toBe("conflict");
  });

  it("applies one email and password rule (the CLI once took any a@b)", async () => {
    for (const email of ["root@localhost", "not an email"]) {
      const input = { email, password: "long enough password", role: "admin" as const };
      expect((await refusal(createOperator(service, input))).code).toBe("bad_request");
      expect((await refusal(createOperatorAction(consoleCtx, input))).code).toBe("bad_request");
    }
    const short = { email: "short@ops.test", password: "11 chars...", role: "admin" as const };
    expect((await refusal(createOperator(service, short))).message).toMatch(/^password: 12 to 200/);
    expect((await refusal(createOperatorAction(consoleCtx, short))).message).toMatch(/^password: 12 to 200/);

    const [cliLocalhost, cliMixedCase] = await Promise.all([
      runCli(["operators", "create", "--email", "root@localhost", "--password", "long enough password", "--role", "admin"], env),
      runCli(
        ["operators", "create", "--email", " Mixed@Ops.Test ", "--password", "long enough password", "--role", "admin"],
        env,
      ),
    ]);
    expect(cliLocalhost).toMatchObject({ code: 4, stderr: expect.stringContaining("email: Enter an email address") });
    expect(cliMixedCase.code).toBe(0);
    expect((await findOperatorByEmail(sql, "mixed@ops.test"))?.email).toBe("mixed@ops.test");
  });

  it("refuses a commonly used password in any letter case, everywhere a password is set (ASVS 2.1.7)", async () => {
    const message = "this password is in a list of commonly used passwords; choose another";
    // Both are 12+ characters, so only the common-password list can refuse them.
    for (const password of ["password1234", "QwErTy123456"]) {
      const input = { email: `common-${password.toLowerCase()}@ops.test`, password, role: "admin" as const };
      expect((await refusal(createOperator(service, input))).message).toBe(`password: ${message}`);
      expect((await refusal(createOperatorAction(consoleCtx, input))).message).toBe(`password: ${message}`);
      const change = ZChangePassword.safeParse({ currentPassword: "x", newPassword: password });
      expect(change.error?.issues.map((issue) => issue.message)).toEqual([message]);
      expect(await findOperatorByEmail(sql, input.email)).toBeUndefined();
    }
    const cli = await runCli(
      ["operators", "create", "--email", "cli-common@ops.test", "--password", "1q2w3e4r5t6y", "--role", "admin"],
      env,
    );
    expect(cli).toMatchObject({ code: 4, stderr: expect.stringContaining(message) });
    expect(await findOperatorByEmail(sql, "cli-common@ops.test")).toBeUndefined();
    // The list is matched whole: a longer password that merely contains a common one is fine.
    const longer = { email: "contains-common@ops.test", password: "password1234 and then some", role: "operator" as const };
    expect((await createOperator(service, longer)).email).toBe(longer.email);
  });

  it("binds a route the same way from console and CLI: the published definition of that exact version", async () => {
    await saveRouteAction(consoleCtx, {
      tenantId,
      toolName: "report_ui",
      workflowName: "generate-report",
      workflowVersion: "1", // forms send text
      taskSupport: "optional",
      title: "",
    });
    const cli = await runCli(
      ["routes", "add", "--tenant", "rules", "--tool", "report_cli", "--workflow", "generate-report", "--version", "1", "--json"],
      env,
    );
    expect(cli.code).toBe(0);
    const rows = await listRouteRevisions(sql, tenantId);
    const byTool = (tool: string) => rows.find((row) => row.tool_name === tool);
    const shape = (tool: string) => {
      const row = byTool(tool);
      return { title: row?.title, description: row?.description, inputSchema: row?.input_schema };
    };
    // The console once left the title empty where the CLI took the workflow's.
    expect(shape("report_ui")).toEqual(shape("report_cli"));
    expect(shape("report_ui")).toEqual({
      title: generateReport.title,
      description: generateReport.description,
      inputSchema: toolInputSchema(generateReport),
    });
    expect(lastJson(cli).input_schema).toEqual(toolInputSchema(generateReport));
  });

  it("refuses a version without a published definition unless unpublished versions are allowed", async () => {
    // The console once borrowed the newest shipped version's schema, the CLI took any object.
    const v2 = { tenantId, toolName: "report_v2", workflowName: "generate-report", workflowVersion: 2 };
    const refused = await refusal(saveRouteAction(consoleCtx, { ...v2, taskSupport: "optional" }));
    expect(refused).toMatchObject({ code: "bad_request", message: expect.stringContaining("generate-report@2") });
    const cliArgs = [
      "routes",
      "add",
      "--tenant",
      "rules",
      "--tool",
      "report_v2",
      "--workflow",
      "generate-report",
      "--version",
      "2",
    ];
    const cliRefused = await runCli(cliArgs, env);
    expect(cliRefused).toMatchObject({ code: 4, stderr: expect.stringContaining("--allow-unpublished") });
    expect((await listRouteRevisions(sql, tenantId)).filter((row) => row.tool_name === "report_v2")).toEqual([]);

    expect(await saveRouteAction(consoleCtx, { ...v2, taskSupport: "optional", allowUnpublished: true })).toEqual({
      revision: 1,
    });
    const cliAllowed = await runCli([...cliArgs, "--allow-unpublished", "--json"], env);
    expect(cliAllowed.code).toBe(0);
    expect(cliAllowed.stderr).toContain("no worker has published generate-report@2");
    expect(lastJson(cliAllowed)).toMatchObject({ revision: 2, input_schema: { type: "object" } });
  });

  it("lets an explicit input schema win, and refuses one that is not an object schema", async () => {
    const schema = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    const cli = await runCli(
      [
        ...["routes", "add", "--tenant", "rules", "--tool", "search", "--workflow", "generate-report", "--version", "1"],
        ...["--input-schema", JSON.stringify(schema), "--json"],
      ],
      env,
    );
    expect(lastJson(cli).input_schema).toEqual(schema);
    const deps = { ...service, resolveDefinition };
    const base = { tenantId, toolName: "search", workflowName: "generate-report", workflowVersion: 1 };
    expect((await saveRoute(deps, { ...base, inputSchema: schema })).inputSchemaFrom).toBe("caller");
    expect((await refusal(saveRoute(deps, { ...base, inputSchema: { type: "string" } }))).message).toMatch(/^inputSchema: /);
    const badCli = await runCli(
      [
        ...["routes", "add", "--tenant", "rules", "--tool", "search", "--workflow", "generate-report", "--version", "1"],
        "--input-schema",
        "[1]",
      ],
      env,
    );
    expect(badCli.code).toBe(4);
  });

  it("applies one tool-name and workflow-name rule (the CLI once took any workflow name)", async () => {
    const deps = { ...service, resolveDefinition };
    const base = { tenantId, workflowName: "generate-report", workflowVersion: 1, allowUnpublished: true };
    expect((await refusal(saveRoute(deps, { ...base, toolName: "bad tool!" }))).message).toMatch(/^toolName: /);
    expect((await refusal(saveRoute(deps, { ...base, toolName: "t", workflowName: "Generate-Report" }))).message).toMatch(
      /^workflowName: /,
    );
    const cli = await runCli(
      [
        "routes",
        "add",
        "--tenant",
        "rules",
        "--tool",
        "t",
        "--workflow",
        "Generate-Report",
        "--version",
        "1",
        "--allow-unpublished",
      ],
      env,
    );
    expect(cli).toMatchObject({ code: 4, stderr: expect.stringContaining("workflowName: ") });
  });

  it("audits every caller as itself: the operator, cli:<user>@<host>, the seed", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    let operatorId = "";
    try {
      const admin = await makeOperator(sql, "admin");
      operatorId = admin.id;
      await createTenantAction(contextFor(sql, admin.id), { slug: "audited", name: "Audited" });
      const empty = await freshDatabase();
      try {
        await seedDemo(empty.sql);
      } finally {
        await empty.drop();
      }
    } finally {
      spy.mockRestore();
    }
    const audits = lines
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.component === "audit");
    expect(audits).toContainEqual(
      expect.objectContaining({ message: "tenant.create", slug: "audited", actor: `operator:${operatorId}`, operatorId }),
    );
    expect(audits).toContainEqual(expect.objectContaining({ message: "tenant.create", slug: "tenant-acme", actor: "seed" }));
    expect(audits).toContainEqual(expect.objectContaining({ message: "route.revise", tool: "durable_report", actor: "seed" }));
    expect(JSON.stringify(audits)).not.toMatch(/rf_[0-9a-f]{16}_|scrypt\$/);

    const cli = await runCli(["tenants", "create", "audited-cli"], env);
    const cliAudits = cli.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(cliAudits).toContainEqual(
      expect.objectContaining({ component: "audit", message: "tenant.create", actor: expect.stringMatching(/^cli:[^@]+@.+$/) }),
    );
  });

  it("seeds routes by the same rule: the seeded schema is what console and CLI bind", async () => {
    const empty = await freshDatabase();
    try {
      await seedDemo(empty.sql);
      const acme = await findTenantBySlug(empty.sql, "tenant-acme");
      const [seeded] = (await listRouteRevisions(empty.sql, acme?.id)).filter((row) => row.tool_name === "durable_report");
      const [bound] = (await listRouteRevisions(sql, tenantId)).filter((row) => row.tool_name === "report_cli");
      expect(seeded?.input_schema).toEqual(bound?.input_schema);
      expect(seeded).toMatchObject({ title: "Durable report", description: generateReport.description });
    } finally {
      await empty.drop();
    }
  });
});
