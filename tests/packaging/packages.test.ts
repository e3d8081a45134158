import { type ChildProcess, spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { McpTaskClient } from "@runifold/client";
import { freePort } from "@runifold/store/embedded";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { lastJson, runCli } from "../cli/run-cli";
import { freshDatabase } from "../helpers/db";
import { connectLegacyClient } from "../helpers/legacy-client";
import { modernClient } from "../helpers/modern-client";
import { ROOT } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import {
  copyProject,
  installedPackages,
  outsideEnv,
  packWorkspaces,
  run,
  stopGroup,
  type Tarballs,
  tarEntries,
} from "./projects";

// The packages as a team gets them: both workspaces packed once (`npm pack -w`, whose prepack
// builds them), then installed from the tarballs — never from this repository — into temporary
// projects that reach only the registry: a copy of examples/expense-approvals (built with tsc against
// the packed types, tested with its own `npm test`, served by its installed `runifold-worker`) and an
// empty project holding @runifold/client alone. The real web app (a production build) knows nothing
// of the example's workflow: it learns it from what the worker publishes, through a route bound with
// the CLI, and both MCP eras drive it to completion with a signal over HTTP and an answer over MCP.

const TENANT = "packaging-team";
const TOOL = "approve_expense_v2";
const BUILT = existsSync(path.join(ROOT, ".next", "BUILD_ID"));
if (!BUILT)
  console.warn(
    "tests/packaging: no production build (.next/BUILD_ID): the app parts are skipped. `npm test` builds first; or run `npm run build`.",
  );

let scratch: string;
let tarballs: Tarballs;
let example: string;
let db: Awaited<ReturnType<typeof freshDatabase>>;
const adminUrl = () => inject("adminDatabaseUrl");

// The web app and what the CLI creates for it: started while the packages are packed and built.
let app: ChildProcess | undefined;
let appOutput = "";
let origin: string;
let mcpUrl: string;
let key: string;
let appStarted: Promise<Error | undefined> | undefined;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-packaging-"));
  db = await freshDatabase();
  // Settled here, thrown where the app is needed: a broken app fails its tests, not the tarballs'.
  appStarted = BUILT
    ? startApp().then(
        () => undefined,
        (error: Error) => error,
      )
    : undefined;
  tarballs = await packWorkspaces(path.join(scratch, "tarballs"));
  // The client-alone project installs while the example builds (its tests report any failure).
  installClientAlone().catch(() => {});
  // The example, with its @runifold/sdk dependency pointed at the tarball; everything else from the registry.
  example = copyProject("examples/expense-approvals", path.join(scratch, "expense-approvals"));
  await run("npm", ["install", tarballs.sdk], { cwd: example, timeoutMs: 180_000 });
  await run("npm", ["run", "build"], { cwd: example, timeoutMs: 180_000 });
  await appStarted;
}, 420_000);

afterAll(async () => {
  await stopGroup(app);
  await db?.drop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** `next start` from this checkout's production build on the test's database; a tenant and a key made with the CLI. */
async function startApp(): Promise<void> {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  mcpUrl = `${origin}/api/mcp`;
  app = spawn(
    process.execPath,
    [path.join(ROOT, "node_modules/next/dist/bin/next"), "start", "-H", "127.0.0.1", "-p", String(port)],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        NEXTAUTH_SECRET: "packaging-test-secret-0123456789abcdef",
        NEXTAUTH_URL: origin,
        RUNIFOLD_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  app.stdout?.on("data", (chunk) => {
    appOutput += chunk;
  });
  app.stderr?.on("data", (chunk) => {
    appOutput += chunk;
  });

  const tenant = await runCli(["tenants", "create", TENANT, "--json"], { DATABASE_URL: db.url });
  if (tenant.code !== 0) throw new Error(`tenants create exited ${tenant.code}: ${tenant.stderr}`);
  const created = await runCli(["keys", "create", "--tenant", TENANT, "--name", "packaging"], { DATABASE_URL: db.url });
  if (created.code !== 0) throw new Error(`keys create exited ${created.code}: ${created.stderr}`);
  key = created.lines.at(-1) as string;
  if (!key.startsWith("rf_")) throw new Error(`keys create printed no key last: ${created.stdout}`);

  await waitFor(
    async () => {
      if (app?.exitCode !== null) throw new Error(`next start exited (${app?.exitCode}):\n${appOutput}`);
      return fetch(`${origin}/api/health`)
        .then((response) => response.status)
        .catch(() => 0);
    },
    (status) => status === 200,
    { describe: "GET /api/health to answer 200", timeoutMs: 120_000, everyMs: 250 },
  );
}

describe("the tarballs", () => {
  it("hold the SDK's built doors, declarations, bin and migrations, and nothing of its sources", async () => {
    const entries = await tarEntries(tarballs.sdk);
    const files = entries.map((entry) => entry.path.replace(/^package\//, ""));
    for (const door of ["index", "testing", "states"]) {
      expect(files).toContain(`dist/${door}.js`);
      expect(files).toContain(`dist/${door}.d.ts`);
    }
    expect(files).toContain("dist/bin/runifold-worker.js");
    expect(files).toContain("README.md");
    expect(files).toContain("LICENSE");
    const bin = entries.find((entry) => entry.path === "package/dist/bin/runifold-worker.js");
    expect(bin?.mode).toMatch(/^-rwx/);
    const migrations = readFileSync(path.join(ROOT, "packages/store/migrations/meta/_journal.json"), "utf8");
    const tags = (JSON.parse(migrations) as { entries: { tag: string }[] }).entries.map((entry) => entry.tag);
    expect(tags.length).toBeGreaterThan(0);
    for (const tag of tags) expect(files).toContain(`dist/migrations/${tag}.sql`);
    expect(files).toContain("dist/migrations/meta/_journal.json");
    expect(files.filter((file) => /(^|\/)src\/|\.test\.|\.ts$/.test(file) && !file.endsWith(".d.ts"))).toEqual([]);
  });

  it("hold the client's build alone", async () => {
    const files = (await tarEntries(tarballs.client)).map((entry) => entry.path.replace(/^package\//, ""));
    const meta = ["package.json", "README.md", "LICENSE"];
    expect(files).toEqual(expect.arrayContaining([...meta, "dist/index.js", "dist/index.d.ts"]));
    expect(files.filter((file) => !file.startsWith("dist/") && !meta.includes(file))).toEqual([]);
    expect(files.filter((file) => file.includes(".test."))).toEqual([]);
  });

  it("declare what a registry package must, with real dependency ranges", () => {
    for (const [name, dir] of [
      ["@runifold/sdk", "packages/sdk"],
      ["@runifold/client", "packages/client"],
    ] as const) {
      const manifest = JSON.parse(readFileSync(path.join(ROOT, dir, "package.json"), "utf8"));
      expect(manifest).toMatchObject({
        name,
        license: "Apache-2.0",
        type: "module",
        engines: { node: expect.any(String) },
        files: expect.arrayContaining(["dist"]),
        exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
      });
      expect(manifest.private).toBeUndefined();
      expect(manifest.scripts?.prepack).toBeTruthy();
      for (const range of Object.values<string>({ ...manifest.dependencies, ...manifest.peerDependencies }))
        expect(range).toMatch(/^\^?\d+\.\d+\.\d+/);
    }
  });
});

describe("examples/expense-approvals installed from the SDK tarball", () => {
  it("installs the SDK from the tarball, builds against the packed types, and passes its own tests", async () => {
    const manifest = JSON.parse(readFileSync(path.join(example, "package.json"), "utf8"));
    expect(manifest.dependencies["@runifold/sdk"]).toMatch(/^file:.*runifold-sdk-.*\.tgz$/);
    // A real copy from the tarball, not a link into this repository.
    expect(lstatSync(path.join(example, "node_modules/@runifold/sdk")).isSymbolicLink()).toBe(false);
    expect(existsSync(path.join(example, "node_modules/@runifold/sdk/src"))).toBe(false);
    const installed = installedPackages(example);
    for (const unwanted of ["next", "react", "next-auth"]) expect(installed).not.toContain(unwanted);
    expect(existsSync(path.join(example, "dist/workflows.js"))).toBe(true);
    const bin = path.join(example, "node_modules/@runifold/sdk/dist/bin/runifold-worker.js");
    expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(bin).mode & 0o111).not.toBe(0);

    const tested = await run("npm", ["test"], {
      cwd: example,
      env: outsideEnv({ TEST_DATABASE_URL: adminUrl() }),
      timeoutMs: 120_000,
    });
    expect(tested.stdout).toMatch(/# pass [1-9]/);
    expect(tested.stdout).toMatch(/# fail 0\b/);
  }, 150_000);
});

/** An empty project (`npm init -y`, ESM) with the client tarball installed and nothing else: made once. */
let clientProject: Promise<string> | undefined;
function installClientAlone(): Promise<string> {
  clientProject ??= (async () => {
    const project = path.join(scratch, "client-alone");
    mkdirSync(project, { recursive: true });
    await run("npm", ["init", "-y"], { cwd: project });
    const manifest = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8"));
    writeFileSync(path.join(project, "package.json"), JSON.stringify({ ...manifest, type: "module" }, null, 2));
    await run("npm", ["install", tarballs.client], { cwd: project, timeoutMs: 120_000 });
    copyFileSync(path.join(ROOT, "tests/packaging/client-flow.mjs"), path.join(project, "client-flow.mjs"));
    return project;
  })();
  return clientProject;
}

describe("@runifold/client installed alone from its tarball", () => {
  it("pulls no Next, React or postgres, and its declarations check under nodenext without skipLibCheck", async () => {
    const project = await installClientAlone();
    const installed = installedPackages(project);
    expect(installed).toEqual(["@runifold/client"]);
    for (const unwanted of ["next", "react", "react-dom", "postgres", "next-auth", "@runifold/sdk"])
      expect(installed).not.toContain(unwanted);

    // The same project as a TypeScript consumer of the packed types (the compiler borrowed from the
    // example, so nothing else is installed here). The client needs only fetch and AbortSignal: the
    // DOM lib gives both, unchecked itself (skipDefaultLibCheck), while every package .d.ts is checked.
    const consumer = project;
    mkdirSync(path.join(consumer, "src"), { recursive: true });
    writeFileSync(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          module: "nodenext",
          moduleResolution: "nodenext",
          strict: true,
          skipLibCheck: false,
          skipDefaultLibCheck: true,
          noEmit: true,
          types: [],
        },
        include: ["src"],
      }),
    );
    writeFileSync(
      path.join(consumer, "src/main.ts"),
      [
        'import { type CallToolOutcome, McpTaskClient, type TaskOutcome, type TaskView } from "@runifold/client";',
        'const client: McpTaskClient = await McpTaskClient.connect("http://127.0.0.1:3000/api/mcp", { key: "rf_x", era: "auto" });',
        'const outcome: CallToolOutcome = await client.callToolOutcome("tool", { a: 1 });',
        'const task: TaskView | undefined = outcome.kind === "task" ? outcome.task : undefined;',
        "export const done: Promise<TaskOutcome> | undefined = task && client.waitTask(task.taskId, { deadlineMs: 1_000 });",
        'await client.updateTask("id", { decision: { action: "accept", content: { decision: "approve" } } });',
        "",
      ].join("\n"),
    );
    await run(process.execPath, [path.join(example, "node_modules/typescript/bin/tsc"), "-p", consumer], { cwd: consumer });
  }, 120_000);
});

describe.skipIf(!BUILT)("the web app serving the example's workflow from a packed worker", () => {
  let worker: ChildProcess | undefined;
  let workerOutput = "";
  let expectedSchema: Record<string, unknown>;
  const cliEnv = () => ({ DATABASE_URL: db.url });

  beforeAll(async () => {
    const failed = await appStarted;
    if (failed) throw failed;

    // The schema zod gives the example's input, computed in the example project with the packed SDK.
    const described = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'import { describeDefinition } from "@runifold/sdk"; import { expenseApproval } from "./dist/workflows.js"; process.stdout.write(JSON.stringify(describeDefinition(expenseApproval).inputSchema));',
      ],
      { cwd: example },
    );
    expectedSchema = JSON.parse(described.stdout);

    // The team's worker: the example's own installed bin, run directly (shebang, executable bit).
    worker = spawn(path.join(example, "node_modules/.bin/runifold-worker"), ["--workflows", "dist/workflows.js"], {
      cwd: example,
      env: outsideEnv({ DATABASE_URL: db.url, RUNIFOLD_LOG_LEVEL: "warn", RUNIFOLD_POLL_MS: "200" }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    worker.stdout?.on("data", (chunk) => {
      workerOutput += chunk;
    });
    worker.stderr?.on("data", (chunk) => {
      workerOutput += chunk;
    });
  }, 60_000);

  afterAll(async () => {
    await stopGroup(worker);
  });

  it("serves a build that holds nothing of the example's workflow", () => {
    const mentions = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) return mentions(file);
        return readFileSync(file).includes("expense-approval") ? [path.relative(ROOT, file)] : [];
      });
    expect(mentions(path.join(ROOT, ".next", "server"))).toEqual([]);
  });

  it("publishes the definition from the worker, and binds a route to it with the CLI", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON output
    const definition = await waitFor<any>(
      async () => {
        if (worker?.exitCode !== null) throw new Error(`runifold-worker exited (${worker?.exitCode}):\n${workerOutput}`);
        const listed = await runCli(["definitions", "list", "--json"], cliEnv());
        // biome-ignore lint/suspicious/noExplicitAny: the CLI's JSON output
        return (lastJson(listed) as any[]).find((d) => d.name === "expense-approval" && d.version === 1);
      },
      (found) => found?.servedBy > 0,
      { describe: "definitions list to show expense-approval@1 served", timeoutMs: 60_000, everyMs: 500 },
    );
    expect(definition.inputSchema).toEqual(expectedSchema);

    const added = await runCli(
      ["routes", "add", "--tenant", TENANT, "--tool", TOOL, "--workflow", "expense-approval", "--version", "1", "--json"],
      cliEnv(),
    );
    expect(added.code, added.stderr).toBe(0);
    // Bound to the published definition (not --input-schema, not --allow-unpublished).
    expect(lastJson(added)).toMatchObject({
      tool_name: TOOL,
      workflow_name: "expense-approval",
      workflow_version: 1,
      definition_revision: definition.revision,
    });
    expect(added.stderr).not.toContain("warning");
    const [route] = await db.sql`SELECT input_schema FROM routes WHERE tool_name = ${TOOL}`;
    expect(route?.input_schema).toEqual(expectedSchema);
  }, 90_000);

  it("lists the tool in both eras with the schema derived from the example's zod input", async () => {
    // The zod schema, concretely: bounds, the enum, the default, required without the defaulted field.
    expect(expectedSchema).toMatchObject({
      type: "object",
      properties: {
        expense_id: { type: "string", minLength: 1, maxLength: 64 },
        amount: { type: "number", exclusiveMinimum: 0, maximum: 100_000 },
        currency: { type: "string", enum: ["EUR", "USD", "GBP"], default: "EUR" },
      },
      required: ["amount", "expense_id"],
    });
    const legacy = await connectLegacyClient(mcpUrl, key);
    try {
      const { tools } = await legacy.client.listTools();
      expect(tools.find((tool) => tool.name === TOOL)).toMatchObject({
        title: "Expense approval",
        inputSchema: expectedSchema,
      });
      expect(tools.find((tool) => tool.name === TOOL)?.inputSchema).toEqual(expectedSchema);
    } finally {
      await legacy.close();
    }
    const modern = await modernClient(mcpUrl, { token: key }).result("tools/list", {});
    // biome-ignore lint/suspicious/noExplicitAny: raw JSON-RPC result
    expect(modern.tools.find((tool: any) => tool.name === TOOL)?.inputSchema).toEqual(expectedSchema);
  });

  it("answers bad arguments with a tool input error naming the field, in both eras, and creates no run", async () => {
    const bad = { expense_id: "E-bad", amount: -1 };
    const legacy = await connectLegacyClient(mcpUrl, key);
    try {
      const result = await legacy.client.callTool({ name: TOOL, arguments: bad });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("amount");
    } finally {
      await legacy.close();
    }
    const client = await McpTaskClient.connect(mcpUrl, { key, era: "modern" });
    const outcome = await client.callToolOutcome(TOOL, bad);
    expect(outcome).toMatchObject({ kind: "complete", result: { isError: true } });
    expect(JSON.stringify(outcome.kind === "complete" && outcome.result.content)).toContain("amount");
    const [{ count }] = (await db.sql`SELECT count(*)::int AS count FROM runs`) as unknown as [{ count: number }];
    expect(count).toBe(0);
  });

  const runStatus = async (taskId: string) => (await db.sql`SELECT status FROM runs WHERE id = ${taskId}`)[0]?.status;
  const sendReceipt = (taskId: string, receipt: string) =>
    fetch(`${origin}/api/v1/tasks/${taskId}/signals/receipt`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receipt }),
    });

  it("completes a call in the modern era: a task, the receipt over HTTP, the decision over MCP", async () => {
    const client = await McpTaskClient.connect(mcpUrl, { key, era: "modern" });
    expect(client.tasksAvailable).toBe(true);
    const outcome = await client.callToolOutcome(TOOL, { expense_id: "E-modern", amount: 120 });
    if (outcome.kind !== "task") throw new Error(`expected a task, got ${JSON.stringify(outcome)}`);
    const { taskId } = outcome.task;
    await waitFor(
      () => runStatus(taskId),
      (status) => status === "waiting_signal",
      {
        describe: `run ${taskId} to wait for the receipt`,
        timeoutMs: 30_000,
      },
    );
    expect((await client.getTask(taskId)).status).toBe("working");

    const receipt = "https://receipts.example/E-modern.pdf";
    const signalled = await sendReceipt(taskId, receipt);
    // (A 404 here from a production build older than the signals endpoint: `npm run build`.)
    expect(signalled.status).toBe(202);

    const waiting = await client.waitTask(taskId, { deadlineMs: 30_000 });
    if (waiting.kind !== "input_required") throw new Error(`expected input_required, got ${JSON.stringify(waiting)}`);
    expect(Object.keys(waiting.inputRequests)).toEqual(["decision"]);
    expect(waiting.inputRequests.decision).toMatchObject({
      method: "elicitation/create",
      params: { requestedSchema: { properties: { decision: { enum: ["approve", "reject"] } } } },
    });
    await client.updateTask(taskId, { decision: { action: "accept", content: { decision: "approve" } } });
    expect(await client.waitTask(taskId, { deadlineMs: 30_000 })).toMatchObject({
      kind: "completed",
      isError: false,
      result: { structuredContent: { expenseId: "E-modern", decision: "approved", receipt } },
    });
  }, 90_000);

  it("completes a call in the legacy era with the official SDK client: task, receipt over HTTP, elicitation answered", async () => {
    const elicited: unknown[] = [];
    const legacy = await connectLegacyClient(mcpUrl, key, {
      onElicit: (request) => {
        elicited.push(request.params);
        return { action: "accept", content: { decision: "approve", comment: "legacy" } };
      },
    });
    const receipt = "https://receipts.example/E-legacy.pdf";
    try {
      const seen: string[] = [];
      let signalled = false;
      let result: Record<string, unknown> | undefined;
      for await (const message of legacy.client.experimental.tasks.callToolStream(
        { name: TOOL, arguments: { expense_id: "E-legacy", amount: 75.5, currency: "GBP" } },
        CallToolResultSchema,
        { task: {} },
      )) {
        seen.push(message.type === "taskStatus" ? message.task.status : message.type);
        if (message.type === "error") throw message.error;
        if (message.type === "result") result = message.result;
        if (message.type === "taskStatus" && message.task.status === "working" && !signalled) {
          const taskId = message.task.taskId;
          await waitFor(
            () => runStatus(taskId),
            (status) => status === "waiting_signal",
            {
              describe: `run ${taskId} to wait for the receipt`,
              timeoutMs: 30_000,
            },
          );
          expect((await sendReceipt(taskId, receipt)).status).toBe(202);
          signalled = true;
        }
      }
      expect(seen[0]).toBe("taskCreated");
      expect(seen).toContain("input_required");
      expect(elicited).toHaveLength(1);
      expect(elicited[0]).toMatchObject({ requestedSchema: { properties: { decision: { enum: ["approve", "reject"] } } } });
      expect(result?.structuredContent).toEqual({ expenseId: "E-legacy", decision: "approved", receipt });
      expect(result?.isError).toBeUndefined();
    } finally {
      await legacy.close();
    }
  }, 90_000);

  it("runs the seed's flow from a project holding @runifold/client alone, in both eras", async () => {
    const project = await installClientAlone();
    for (const era of ["modern", "legacy"] as const) {
      const flow = await run(process.execPath, ["client-flow.mjs", mcpUrl, key, TOOL, era], { cwd: project, timeoutMs: 120_000 });
      expect(JSON.parse(flow.stdout.trim().split("\n").at(-1) as string)).toMatchObject({
        era,
        firstStatus: "working",
        asked: ["decision"],
        kind: "completed",
        isError: false,
        structuredContent: { expenseId: `C-${era}`, decision: "approved", receipt: `https://receipts.example/C-${era}.pdf` },
      });
    }
  }, 180_000);
});
