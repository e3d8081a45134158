import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SqlHandle } from "@runifold/store";
import { findTenantBySlug } from "../../db/queries/tenants";
import { type AdminContext, createKey, createTenant, ensureFirstAdmin, SEED_ACTOR } from "../../lib/admin";
import type { SeedResult } from "../lib/stack";

/** The tenant `runifold-server dev` makes on an empty store; a team's routes go there first. */
export const DEV_TENANT = "dev";

/** The dev store's API key, kept between runs (the store keeps only its hash): `<state dir>/dev-key.json`, 0600. */
type SavedKey = { tenant: string; apiKey: string };

export function readSavedKey(stateDir: string): SavedKey | undefined {
  try {
    const saved = JSON.parse(readFileSync(path.join(stateDir, "dev-key.json"), "utf8")) as Partial<SavedKey>;
    return typeof saved.tenant === "string" && typeof saved.apiKey === "string"
      ? { tenant: saved.tenant, apiKey: saved.apiKey }
      : undefined;
  } catch {
    return undefined;
  }
}

function saveKey(stateDir: string, key: SavedKey) {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(stateDir, "dev-key.json"), `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600 });
}

/**
 * What `runifold-server dev` seeds: on a store without tenants, a first admin (the same as the
 * migrate job's: a random password changed at first sign-in), the tenant `dev` and an API key of it,
 * returned once to be shown. On later runs nothing, unless the saved key is gone while the tenant is
 * still there: then a new key replaces it (the old one's secret is known nowhere). The key is saved
 * under the state directory so every run can hand it to local workers in dev.json.
 */
export function devSeed(stateDir: string): (sql: SqlHandle) => Promise<SeedResult | undefined> {
  return async (sql) => {
    const ctx: AdminContext = { sql, actor: SEED_ACTOR };
    const [row] = await sql.unsafe<{ n: number }[]>("SELECT count(*)::int AS n FROM tenants");
    if (Number(row?.n) === 0) {
      const operator = await ensureFirstAdmin(ctx);
      const tenant = await createTenant(ctx, { slug: DEV_TENANT, name: "Development" });
      const { token } = await createKey(ctx, { tenantId: tenant.id, name: "dev" });
      saveKey(stateDir, { tenant: DEV_TENANT, apiKey: token });
      return { created: true, apiKey: token, operator };
    }
    if (readSavedKey(stateDir)) return undefined;
    const tenant = await findTenantBySlug(sql, DEV_TENANT);
    if (!tenant) return undefined;
    const { token } = await createKey(ctx, { tenantId: tenant.id, name: `dev-${new Date().toISOString().slice(0, 10)}` });
    saveKey(stateDir, { tenant: DEV_TENANT, apiKey: token });
    return { created: true, apiKey: token };
  };
}
