import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tarballName } from "../../scripts/release/publish";
import { publishOrder, workspacePackages } from "../../scripts/release/workspace";
import { requireStandaloneBuild } from "../deploy/support";
import { ROOT } from "../helpers/processes";
import { outsideEnv, run, withPackLock } from "./projects";
import { startVerdaccio, type Verdaccio } from "./verdaccio";

// Install by name, as a team will once the packages are public: the release script publishes every
// publishable workspace package (packages/*, not private) to a real registry on loopback (Verdaccio,
// which has @runifold/* only from that publish and proxies everything else upstream), with a token
// for a user created through the registry's adduser API; then an empty project runs
// `npm install @runifold/sdk @runifold/client` by name against it, and uses what it got. Publishing
// packs every package (@runifold/server from this checkout's production build: `npm run build` first).

const PUBLISHABLE = publishOrder(workspacePackages(ROOT)).map((pkg) => pkg.manifest);
const PUBLISHED_BY_TEST = ["@runifold/sdk", "@runifold/client"];

let scratch: string;
let registry: Verdaccio;
let publisherConfig: string;
const timings: Record<string, number> = {};

/** An npm user configuration of its own: the publisher's holds the token; a team's holds nothing. */
function npmrc(file: string, lines: string[]): string {
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return file;
}

async function timed<T>(phase: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    timings[phase] = Date.now() - started;
  }
}

/** The release script, from the repository root, as CI runs it. */
function release(args: string[]) {
  return run(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), "scripts/release.ts", ...args], {
    cwd: ROOT,
    env: outsideEnv({ npm_config_userconfig: publisherConfig, npm_config_loglevel: "warn" }),
    timeoutMs: 540_000,
  });
}

beforeAll(async () => {
  // @runifold/server is packed from this checkout's production build: without one, say so first.
  if (PUBLISHABLE.some((manifest) => manifest.name === "@runifold/server")) requireStandaloneBuild();
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-registry-"));
  // Verdaccio proxies to whatever registry npm is configured with here (CI's and a developer's alike).
  const upstream = (await run("npm", ["config", "get", "registry"], { cwd: scratch })).stdout.trim();
  registry = await timed("registry start", () => startVerdaccio(path.join(scratch, "verdaccio"), upstream));
  const token = await registry.addUser("release-test", "release-test-password");
  const host = registry.url.replace(/^https?:/, "");
  publisherConfig = npmrc(path.join(scratch, "publisher.npmrc"), [`${host}:_authToken=${token}`]);
}, 120_000);

afterAll(async () => {
  await registry?.stop();
  console.info(`tests/packaging/registry: ${JSON.stringify(timings)}`);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("install by name from a registry", () => {
  it("publishes every publishable package with the release script, in dependency order", async () => {
    expect(PUBLISHABLE.map((manifest) => manifest.name)).toEqual(expect.arrayContaining(PUBLISHED_BY_TEST));
    // Packing rebuilds packages/*/dist, which the other packaging tests pack too: one at a time.
    const published = await timed("publish", () =>
      withPackLock(() =>
        release(["publish", "--registry", registry.url, "--no-provenance", "--out", path.join(scratch, "tarballs")]),
      ),
    );
    for (const manifest of PUBLISHABLE) {
      expect(published.stdout).toContain(`published: ${manifest.name}@${manifest.version}`);
      const viewed = await run("npm", ["view", manifest.name, "dist-tags.latest", "--registry", registry.url], {
        cwd: scratch,
      });
      expect(viewed.stdout.trim()).toBe(manifest.version);
    }
    const order = PUBLISHABLE.map((manifest) => published.stdout.indexOf(`published: ${manifest.name}@`));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  }, 600_000);

  it("skips what the registry already has, so a release that stopped halfway is finished by running it again", async () => {
    const again = await release(["publish", "--registry", registry.url, "--no-provenance"]);
    for (const manifest of PUBLISHABLE) {
      expect(again.stdout).toContain(`${manifest.name}@${manifest.version} is already on the registry: skipped`);
    }
  });

  it("installs @runifold/sdk and @runifold/client by name into an empty project, which imports them and runs the worker bin", async () => {
    const project = path.join(scratch, "team");
    mkdirSync(project);
    writeFileSync(
      path.join(project, "package.json"),
      `${JSON.stringify({ name: "team", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
    );
    // A team's npm knows no token and no tarball: only the registry's address.
    const env = outsideEnv({ npm_config_userconfig: npmrc(path.join(scratch, "team.npmrc"), []) });
    await timed("install", () =>
      run("npm", ["install", ...PUBLISHED_BY_TEST, "--registry", registry.url, "--loglevel", "warn"], {
        cwd: project,
        env,
        timeoutMs: 300_000,
      }),
    );

    const manifest = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8"));
    const lock = JSON.parse(readFileSync(path.join(project, "package-lock.json"), "utf8"));
    for (const name of PUBLISHED_BY_TEST) {
      const version = PUBLISHABLE.find((published) => published.name === name)?.version as string;
      // Saved as a registry range (not a file: path), at the published version, and byte for byte the
      // tarball the release script published (npm records its sha512 whether or not it keeps the URL).
      expect(manifest.dependencies[name]).toBe(`^${version}`);
      const tarball = readFileSync(path.join(scratch, "tarballs", tarballName(name, version)));
      expect(lock.packages[`node_modules/${name}`]).toMatchObject({
        version,
        integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
      });
      const installed = JSON.parse(readFileSync(path.join(project, "node_modules", name, "package.json"), "utf8"));
      expect(installed.version).toBe(version);
    }
    // The store is bundled into the SDK, never installed.
    expect(existsSync(path.join(project, "node_modules/@runifold/store"))).toBe(false);

    const used = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        [
          'import { defineWorkflow } from "@runifold/sdk";',
          'import { createTestEnvironment } from "@runifold/sdk/testing";',
          'import { McpTaskClient } from "@runifold/client";',
          "const workflow = defineWorkflow({ name: 'hello', version: 1, async run(ctx, input) { return input; } });",
          "console.log(JSON.stringify({ workflow: workflow.name, testing: typeof createTestEnvironment, client: typeof McpTaskClient }));",
        ].join("\n"),
      ],
      { cwd: project, env },
    );
    expect(JSON.parse(used.stdout.trim().split("\n").at(-1) as string)).toEqual({
      workflow: "hello",
      testing: "function",
      client: "function",
    });

    const help = await run(path.join(project, "node_modules/.bin/runifold-worker"), ["--help"], { cwd: project, env });
    expect(help.stdout).toContain("Usage: runifold-worker --workflows <module>");
  }, 600_000);
  it("installs every published package by name together, and each of their bins answers --help", async () => {
    const project = path.join(scratch, "everything");
    mkdirSync(project);
    writeFileSync(
      path.join(project, "package.json"),
      `${JSON.stringify({ name: "everything", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
    );
    const env = outsideEnv({ npm_config_userconfig: npmrc(path.join(scratch, "everything.npmrc"), []) });
    const names = PUBLISHABLE.map((manifest) => manifest.name);
    await timed("install all", () =>
      run("npm", ["install", ...names, "--registry", registry.url, "--loglevel", "warn"], {
        cwd: project,
        env,
        timeoutMs: 300_000,
      }),
    );
    const bins: string[] = [];
    for (const published of PUBLISHABLE) {
      const installed = JSON.parse(readFileSync(path.join(project, "node_modules", published.name, "package.json"), "utf8"));
      expect(installed.version).toBe(published.version);
      const bin = installed.bin as string | Record<string, string> | undefined;
      if (typeof bin === "string") bins.push(installed.name.split("/").at(-1));
      else bins.push(...Object.keys(bin ?? {}));
    }
    expect(bins).toContain("runifold-worker");
    for (const bin of bins) {
      const help = await run(path.join(project, "node_modules/.bin", bin), ["--help"], { cwd: project, env });
      expect(help.stdout, bin).toContain(bin);
    }
  }, 600_000);
});
