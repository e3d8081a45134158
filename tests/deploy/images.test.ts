import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { validate } from "dockerfile-utils";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../helpers/processes";
import { copies, DOCKERFILE, imageSpec, parseDockerfile } from "./dockerfile";

// The Dockerfile, compose.yaml and docs/deploy.md checked against each other and the repository,
// without a container runtime: linted with dockerfile-utils (the Docker language server's
// validator), every COPY source present and not excluded from the build context, each target's user,
// command and health check as documented, and the documented `docker build` lines naming real targets.

const text = readFileSync(DOCKERFILE, "utf8");
const stages = parseDockerfile(text);
const TARGETS = ["web", "worker", "migrate"] as const;
const deployDoc = readFileSync(path.join(ROOT, "docs/deploy.md"), "utf8");
type ComposeService = {
  image?: string;
  build?: { context: string; target: string };
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
};
const compose = parse(readFileSync(path.join(ROOT, "compose.yaml"), "utf8")) as { services: Record<string, ComposeService> };

/** .dockerignore as Docker applies it to a path (the patterns this project uses: dirs, globs, `**`). */
function ignored(relative: string): boolean {
  const patterns = readFileSync(path.join(ROOT, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  const segment = (part: string) => part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*");
  const toRegex = (pattern: string) => new RegExp(`^${pattern.split("**/").map(segment).join("(.*/)?")}(/.*)?$`);
  return patterns.some((pattern) => toRegex(pattern).test(relative));
}

describe("Dockerfile", () => {
  it("passes the dockerfile-utils validator with no diagnostics", () => {
    expect(validate(text).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it("has RUN commands that are valid POSIX shell (sh -n), as the slim image's /bin/sh runs them", () => {
    const runs = stages.flatMap((stage) => stage.instructions.filter((i) => i.getKeyword() === "RUN"));
    expect(runs.length).toBeGreaterThan(0);
    for (const instruction of runs) {
      const command = (instruction.getArgumentsContent() ?? "").replace(/\\\n/g, " ");
      const checked = spawnSync("sh", ["-n", "-c", command], { encoding: "utf8" });
      expect(checked.status, `${command}\n${checked.stderr}`).toBe(0);
    }
  });

  it("builds every target from the slim Node 20 image and runs it as the unprivileged user", () => {
    expect(text).toMatch(/^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
    for (const target of TARGETS) {
      const spec = imageSpec(target, stages);
      expect(spec.chain.at(-1), target).toBe("runtime");
      expect(stages.find((s) => s.name === "runtime")?.base).toMatch(/^\$\{NODE_IMAGE\}$/);
      expect(spec.user, target).toBe("runifold");
      expect(spec.workdir, target).toBe("/app");
      expect(spec.env.NODE_ENV, target).toBe("production");
    }
    expect(text).toMatch(/useradd --system --uid 10001/);
  });

  it("web: the standalone entry point on 0.0.0.0:3000 with a HEALTHCHECK on /api/health by node's fetch", () => {
    const web = imageSpec("web", stages);
    expect(web.cmd).toEqual(["node", "start.mjs"]);
    expect(web.env).toMatchObject({ HOST: "0.0.0.0", PORT: "3000" });
    expect(web.exposes).toEqual(["3000"]);
    expect(web.healthcheck?.command.slice(0, 2)).toEqual(["node", "-e"]);
    expect(web.healthcheck?.command[2]).toMatch(/fetch\(.*\/api\/health/);
    expect(web.healthcheck?.flags).toEqual(expect.arrayContaining(["--interval=10s", "--timeout=5s"]));
    // Last, so a plain `docker build .` gives the web image.
    expect(stages.at(-1)?.name).toBe("web");
  });

  it("migrate: the one-shot job; worker: runifold-worker with the bundled demo module", () => {
    expect(imageSpec("migrate", stages).cmd).toEqual(["node", "migrate.mjs"]);
    const worker = imageSpec("worker", stages);
    expect(worker.entrypoint).toEqual(["node", "/app/node_modules/@runifold/sdk/dist/bin/runifold-worker.js"]);
    expect(worker.cmd).toEqual([]);
    expect(worker.env.RUNIFOLD_WORKFLOWS).toBe("/app/workflows/index.js");
    expect(worker.healthcheck).toBeUndefined();
  });

  it("copies only what exists and is in the build context; --from names an earlier stage", () => {
    const names = stages.map((s) => s.name);
    for (const copy of copies(stages)) {
      if (copy.from) {
        expect(names.indexOf(copy.from), `COPY --from=${copy.from}`).toBeGreaterThanOrEqual(0);
        expect(names.indexOf(copy.from)).toBeLessThan(names.indexOf(copy.stage));
        // What the build stage's assemble step writes.
        expect(
          copy.sources.every((source) => ["/out/web", "/out/worker"].includes(source)),
          copy.sources.join(),
        ).toBe(true);
        continue;
      }
      for (const source of copy.sources) {
        if (source === ".") continue;
        expect(existsSync(path.join(ROOT, source)), `COPY ${source}`).toBe(true);
        expect(ignored(source), `COPY ${source} is excluded by .dockerignore`).toBe(false);
      }
    }
    const build = stages.find((s) => s.name === "build");
    const runs = build?.instructions.filter((i) => i.getKeyword() === "RUN").map((i) => i.getArgumentsContent() ?? "");
    expect(runs?.join("\n")).toMatch(/scripts\/deploy\/assemble\.ts --web \/out\/web --worker \/out\/worker/);
  });

  it("installs dependencies with a manifest of every workspace package", () => {
    const manifests = copies(stages)
      .filter((copy) => copy.stage === "deps")
      .flatMap((copy) => copy.sources);
    const workspaces = readdirSync(path.join(ROOT, "packages")).filter((dir) =>
      existsSync(path.join(ROOT, "packages", dir, "package.json")),
    );
    expect(manifests).toEqual(
      expect.arrayContaining(["package.json", "package-lock.json", ...workspaces.map((dir) => `packages/${dir}/package.json`)]),
    );
  });

  it("keeps the build's inputs in the context and local state, dependencies and secrets out", () => {
    for (const needed of [
      "scripts/deploy/assemble.ts",
      "next.config.ts",
      "packages/store/migrations/meta/_journal.json",
      "workflows/demo/index.ts",
      "packages/sdk/src/index.ts",
      "app",
      "cli/main.ts",
    ])
      expect(ignored(needed), needed).toBe(false);
    for (const kept of [
      "node_modules",
      "packages/sdk/node_modules",
      ".next",
      ".data/pg",
      ".env",
      ".env.production",
      ".git",
      "packages/sdk/dist",
    ])
      expect(ignored(kept), kept).toBe(true);
  });
});

describe("compose.yaml", () => {
  it("runs postgres (health-checked), the migrate job after it, then two web and two worker replicas", () => {
    const { postgres, migrate, web, worker } = compose.services;
    expect(postgres?.image).toMatch(/^postgres:\d+/);
    expect(postgres?.healthcheck?.test.join(" ")).toContain("pg_isready");
    expect(migrate?.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    for (const service of [web, worker]) {
      expect(service?.depends_on).toEqual({ migrate: { condition: "service_completed_successfully" } });
      expect(service?.deploy?.replicas).toBe(2);
    }
    for (const [name, service] of Object.entries({ migrate, web, worker }))
      expect(service?.build, name).toEqual({ context: ".", target: name });
  });

  it("gives each service the environment docs/deploy.md requires, and nothing undocumented", () => {
    const { migrate, web, worker } = compose.services;
    expect(Object.keys(web?.environment ?? {})).toEqual(
      expect.arrayContaining(["DATABASE_URL", "NEXTAUTH_SECRET", "NEXTAUTH_URL", "RUNIFOLD_PUBLIC_URL", "HOST"]),
    );
    expect(web?.environment?.HOST).toBe("0.0.0.0");
    expect(migrate?.environment).toMatchObject({ RUNIFOLD_SEED: "admin" });
    expect(Object.keys(worker?.environment ?? {})).toEqual(expect.arrayContaining(["DATABASE_URL", "RUNIFOLD_WORKFLOWS"]));
    for (const service of [migrate, web, worker])
      for (const name of Object.keys(service?.environment ?? {})) expect(deployDoc, name).toContain(`\`${name}\``);
  });
});

describe("compose.yaml's database roles (review 3, F3/F4)", () => {
  /** user, password, host:port and database of a compose URL (its `${VAR:?…}` parts are not URL-safe). */
  const parts = (url: string | undefined) => {
    const match = /^postgres:\/\/([^:]+):(.*)@([^@/]+)\/([\w-]+)$/.exec(url ?? "");
    if (!match) throw new Error(`not a postgres URL: ${url}`);
    const [, user = "", password = "", host = "", database = ""] = match;
    return { user, password, host, database };
  };

  it("gives the superuser POSTGRES_USER to the migrate job only; web and worker connect as the runtime logins it creates", () => {
    const { postgres, migrate, web, worker } = compose.services;
    const owner = parts(migrate?.environment?.DATABASE_URL);
    expect(owner.user).toBe(postgres?.environment?.POSTGRES_USER);
    expect(owner.database).toBe(postgres?.environment?.POSTGRES_DB);
    for (const [kind, service] of [
      ["web", web],
      ["worker", worker],
    ] as const) {
      const url = parts(service?.environment?.DATABASE_URL);
      // The names createRuntimeLogins (migration 0035's runifold_role_name) gives this database's logins.
      expect(url.user, kind).toBe(`runifold_${kind}_${owner.database}`);
      expect({ host: url.host, database: url.database }).toEqual({ host: owner.host, database: owner.database });
      // The password is the variable the migrate job sets it from, required (`:?`) on both sides.
      const variable = `RUNIFOLD_${kind.toUpperCase()}_DB_PASSWORD`;
      expect(url.password.startsWith(`\${${variable}:?`), kind).toBe(true);
      expect(migrate?.environment?.[variable]?.startsWith(`\${${variable}:?`), kind).toBe(true);
    }
  });
});

describe("docs/deploy.md", () => {
  it("builds each target with a `docker build` line that matches the Dockerfile and compose's image names", () => {
    const lines = [...deployDoc.matchAll(/docker build --target (\S+) -t (\S+) \./g)].map((m) => ({ target: m[1], tag: m[2] }));
    expect(lines.map((l) => l.target).sort()).toEqual([...TARGETS].sort());
    for (const { target, tag } of lines) {
      expect(stages.map((s) => s.name)).toContain(target);
      expect(compose.services[target as string]?.image).toBe(tag);
    }
  });

  it("documents every variable the web, the migrate job and the worker read", () => {
    const names = (file: string) =>
      [...readFileSync(path.join(ROOT, file), "utf8").matchAll(/^\s+([A-Z][A-Z0-9_]+): z\b/gm)].map((m) => m[1] as string);
    const all = [...names("lib/env.ts"), ...names("packages/sdk/src/runtime/worker-env.ts")];
    expect(all).toEqual(expect.arrayContaining(["DATABASE_URL", "NEXTAUTH_SECRET", "RUNIFOLD_LEASE_MS"]));
    expect(all.filter((name) => !deployDoc.includes(`\`${name}\``))).toEqual([]);
  });
});
