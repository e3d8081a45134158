import { execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientFixture, startClientFixture } from "../client/client-fixture";
import { startMcpTestServer } from "../helpers/mcp-server";

/**
 * Agents people use, from the npm registry (issue 29, docs/clients.md): each CLI adds this server
 * with its own `mcp add` command, exactly as docs/clients.md tells a user to, and then reports it
 * connected — the CLI itself connected over real HTTP and listed our tools. No model access is
 * needed for that. The control case (a wrong key) proves the CLI's status is not a constant.
 * The CLIs are pinned in tools/clients (their own lockfile, ~800 MB with native binaries, so the
 * project's own install stays small) and installed here on first use.
 */
const TOOLS = path.resolve("tools/clients");
const CLAUDE = path.join(TOOLS, "node_modules/.bin/claude");
const CODEX = path.join(TOOLS, "node_modules/.bin/codex");

function ensureInstalled() {
  if (existsSync(CLAUDE) && existsSync(CODEX)) return;
  const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", TOOLS], { stdio: "inherit" });
  if (npm.status !== 0 || !existsSync(CLAUDE) || !existsSync(CODEX)) throw new Error("could not install tools/clients");
}

let fixture: ClientFixture;
let home: string;

/** What each CLI's initialize declared: its protocol version and capabilities (docs/clients.md says what they mean). */
const initializes: { clientInfo?: { name?: string }; protocolVersion?: string; capabilities?: Record<string, unknown> }[] = [];

beforeAll(async () => {
  ensureInstalled();
  fixture = await startClientFixture();
  // The fixture's server again, recording initialize requests (the web route's wrap point).
  await fixture.server.close();
  fixture.server = await startMcpTestServer(fixture.db.sql, {
    wrap: (handler) => async (request) => {
      const body = await request
        .clone()
        .json()
        .catch(() => undefined);
      if (body?.method === "initialize") initializes.push(body.params);
      return handler(request);
    },
  });
}, 300_000);
afterAll(async () => {
  await fixture?.close();
});

/**
 * One CLI command in a home of its own (no user config read or written). Asynchronous: the server
 * under test answers from this same process, so a synchronous spawn would starve it.
 */
function run(bin: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number; out: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { cwd: home, encoding: "utf8", timeout: 90_000, env: cliEnv(env) }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ status, out: `${stdout}\n${stderr}` });
    });
  });
}

function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    // Next's types make NODE_ENV required; the CLIs run as a user runs them.
    NODE_ENV: "production",
    PATH: process.env.PATH ?? "",
    HOME: home,
    CODEX_HOME: path.join(home, ".codex"),
    // Claude Code: no telemetry, no auto-update, no error reporting from a test.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    ...env,
  };
}

function freshHome() {
  home = mkdtempSync(path.join(os.homedir(), ".runifold-cli-home-"));
  mkdirSync(path.join(home, ".codex"));
}

describe("Claude Code (@anthropic-ai/claude-code)", () => {
  it("claude mcp add --transport http … --header 'Authorization: Bearer <key>' then claude mcp list: connected", {
    timeout: 180_000,
  }, async () => {
    const check = async (key: string) => {
      freshHome();
      try {
        const added = await run(CLAUDE, [
          "mcp",
          "add",
          "--transport",
          "http",
          "runifold",
          fixture.server.url,
          "--header",
          `Authorization: Bearer ${key}`,
        ]);
        expect(added.status, added.out).toBe(0);
        const listed = await run(CLAUDE, ["mcp", "list"]);
        return listed.out.split("\n").find((line) => line.startsWith("runifold:")) ?? listed.out;
      } finally {
        rmSync(home, { recursive: true, force: true, maxRetries: 5 });
      }
    };
    const good = await check(fixture.acmeKey);
    expect(good).toContain(fixture.server.url);
    expect(good).toMatch(/[✓✔] Connected/);
    const bad = await check("rk_not_a_key");
    expect(bad).toMatch(/Failed to connect.*401/);
    // What docs/clients.md says of Claude Code: 2025-11-25, form (and url) elicitation, no tasks.
    const claude = initializes.find((init) => init.clientInfo?.name === "claude-code");
    expect(claude?.protocolVersion).toBe("2025-11-25");
    expect(claude?.capabilities).toMatchObject({ elicitation: { form: {} } });
    expect(claude?.capabilities).not.toHaveProperty("tasks");
  });
});

describe("Codex CLI (@openai/codex)", () => {
  it("codex mcp add runifold --url … --bearer-token-env-var: codex lists it, and its app-server connects and lists our tools", {
    timeout: 180_000,
  }, async () => {
    const check = async (key: string) => {
      freshHome();
      try {
        const env = { RUNIFOLD_API_KEY: key };
        const added = await run(
          CODEX,
          ["mcp", "add", "runifold", "--url", fixture.server.url, "--bearer-token-env-var", "RUNIFOLD_API_KEY"],
          env,
        );
        expect(added.status, added.out).toBe(0);
        const listed = await run(CODEX, ["mcp", "list", "--json"], env);
        expect(listed.status, listed.out).toBe(0);
        const [entry] = JSON.parse(listed.out.slice(listed.out.indexOf("["))) as {
          name: string;
          enabled: boolean;
          auth_status: string;
        }[];
        expect(entry).toMatchObject({ name: "runifold", enabled: true, auth_status: "bearer_token" });
        return await appServerTools(env);
      } finally {
        rmSync(home, { recursive: true, force: true, maxRetries: 5 });
      }
    };
    const tools = await check(fixture.acmeKey);
    // Codex negotiates no tasks: it is offered the routes' tools and the task handles (DESIGN §8).
    expect(tools).toEqual(
      expect.arrayContaining(["approve_expense", "durable_report", "runifold_task_wait", "runifold_task_answer"]),
    );
    expect(await check("rk_not_a_key")).toEqual([]);
    // What docs/clients.md says of Codex: 2025-06-18 (no tasks in that version), form elicitation.
    const codex = initializes.find((init) => init.clientInfo?.name === "codex-mcp-client");
    expect(codex?.protocolVersion).toBe("2025-06-18");
    expect(codex?.capabilities).toMatchObject({ elicitation: { form: {} } });
  });
});

/**
 * The tools Codex's app-server (JSON-RPC over stdio, as its IDE extensions speak it) reports for
 * the server named runifold after connecting to it: initialize, then mcpServerStatus/list.
 */
async function appServerTools(env: Record<string, string>): Promise<string[]> {
  const child = spawn(CODEX, ["app-server"], { cwd: home, env: cliEnv(env), stdio: ["pipe", "pipe", "ignore"] });
  const lines = readline.createInterface({ input: child.stdout });
  const answers = new Map<number, (value: StatusAnswer) => void>();
  lines.on("line", (line) => {
    let message: { id?: unknown } & StatusAnswer;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not a JSON-RPC line
    }
    if (typeof message.id === "number") answers.get(message.id)?.(message);
  });
  const request = (id: number, method: string, params: unknown) =>
    new Promise<StatusAnswer>((resolve) => {
      answers.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
    });
  try {
    await request(1, "initialize", { clientInfo: { name: "runifold-test", version: "0" } });
    child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
    const status = await request(2, "mcpServerStatus/list", {});
    const entry = status.result?.data?.find((server) => server.name === "runifold");
    return Object.keys(entry?.tools ?? {});
  } finally {
    // Its own threads still write under CODEX_HOME until it has exited: wait, so the home can go.
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill();
    await exited;
  }
}

type StatusAnswer = { result?: { data?: { name: string; tools?: Record<string, unknown> | null }[] } };
