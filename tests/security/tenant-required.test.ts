import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { revokeKey } from "../../lib/admin";

/** The admin (any-tenant) forms of tenant-scoped operations: for the CLI only (L10). */
const ADMIN_FORMS = [
  /\brevokeKeyAsAdmin\b/,
  /\brevokeApiKeyAsAdmin\b/,
  /\brevokeApiKey\b(?!ForTenant)/,
  /\bcancelRunAsAdmin\b/,
  /\bprovideInputAsAdmin\b/,
  /\bsendSignalAsAdmin\b/,
];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sources(file);
    return /\.(ts|tsx)$/.test(name) && !name.endsWith(".test.ts") ? [file] : [];
  });
}

describe("tenant-required operations (L10)", () => {
  it.each(["lib/mcp", "lib/ui", "lib/http-api"])("%s never calls an admin form", (dir) => {
    const offenders = sources(path.join(process.cwd(), dir)).flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return ADMIN_FORMS.filter((pattern) => pattern.test(text)).map((pattern) => `${file}: ${pattern}`);
    });
    expect(offenders).toEqual([]);
  });

  it("the tenant-scoped key revocation refuses a missing tenant (before: it fell back to every tenant)", async () => {
    const sql = {} as never; // refused while parsing, before any query
    await expect(revokeKey({ sql, actor: { kind: "seed" } }, { keyId: "0123456789abcdef" } as never)).rejects.toMatchObject({
      code: "bad_request",
    });
  });
});
