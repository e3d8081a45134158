import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { freePort } from "@runifold/store/embedded";
import { waitFor } from "../helpers/wait-for";
import { stopGroup } from "./projects";

/**
 * A real npm registry on loopback for the packaging tests: Verdaccio (an exact devDependency) with a
 * configuration and storage of its own under `dir`. @runifold/* lives only here (never proxied, so
 * an install by name can only find what the test published); every other package is proxied to
 * `upstream`, the registry npm is configured with, so the packages' own dependencies install.
 * Publishing needs a user (created through the registry's adduser API); reading does not.
 */
export type Verdaccio = {
  url: string;
  /** Creates a user through `PUT /-/user/org.couchdb.user:<name>` (what `npm adduser` calls); answers its token. */
  addUser(name: string, password: string): Promise<string>;
  /** What it printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
};

const require = createRequire(import.meta.url);

export async function startVerdaccio(dir: string, upstream: string): Promise<Verdaccio> {
  mkdirSync(path.join(dir, "storage"), { recursive: true });
  const config = path.join(dir, "config.yaml");
  // YAML accepts JSON: the paths and the upstream URL are quoted by JSON.stringify.
  writeFileSync(
    config,
    JSON.stringify(
      {
        storage: path.join(dir, "storage"),
        // @runifold/server's tarball holds a built Next server (over 10 MB, Verdaccio's default bound).
        max_body_size: "200mb",
        auth: { htpasswd: { file: path.join(dir, "htpasswd"), max_users: 10 } },
        uplinks: { upstream: { url: upstream, timeout: "60s" } },
        packages: {
          "@runifold/*": { access: "$all", publish: "$authenticated", unpublish: "$authenticated" },
          "**": { access: "$all", publish: "$authenticated", proxy: "upstream" },
        },
        web: { enable: false },
        log: { type: "stdout", format: "pretty", level: "warn" },
      },
      null,
      2,
    ),
  );
  const manifestPath = require.resolve("verdaccio/package.json");
  const bin = (JSON.parse(readFileSync(manifestPath, "utf8")) as { bin: string }).bin;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  let printed = "";
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(path.dirname(manifestPath), bin), "--config", config, "--listen", `127.0.0.1:${port}`],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  child.stdout?.on("data", (chunk) => {
    printed += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    printed += chunk;
  });
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${printed}`);
        return fetch(`${url}-/ping`)
          .then((response) => response.status)
          .catch(() => 0);
      },
      (status) => status === 200,
      { describe: `verdaccio to answer on ${url}`, timeoutMs: 60_000, everyMs: 200 },
    );
  } catch (error) {
    await stopGroup(child);
    throw error;
  }

  return {
    url,
    output: () => printed,
    stop: () => stopGroup(child),
    async addUser(name, password) {
      const response = await fetch(`${url}-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, password }),
      });
      const body = (await response.json()) as { token?: string; error?: string };
      if (response.status !== 201 || !body.token) throw new Error(`adduser ${name}: ${response.status} ${JSON.stringify(body)}`);
      return body.token;
    },
  };
}
