import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { MIGRATIONS_DIR } from "@runifold/store";

/**
 * The migrations that ship with this SDK. The build copies them to dist/migrations, and the code
 * asking may sit in dist/ (a shared chunk) or dist/bin/ (the worker bin); from source it is
 * @runifold/store's own migrations directory. The journal marks a real directory, so a stray folder never counts.
 */
export function shippedMigrationsDir(from: string = import.meta.url): string {
  const here = path.dirname(fileURLToPath(from));
  const candidates = [path.join(here, "migrations"), path.join(here, "..", "migrations"), MIGRATIONS_DIR];
  const found = candidates.find((dir) => existsSync(path.join(dir, "meta", "_journal.json")));
  if (!found) throw new Error(`@runifold/sdk: no migrations found (looked in ${candidates.join(", ")})`);
  return found;
}
