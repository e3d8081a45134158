import { type ApiKeyRow, listApiKeys } from "../../../db/queries/api-keys";
import { type CreatedKey, createKey, revokeKey, revokeKeyAsAdmin } from "../../../lib/admin";
import { isScope, SCOPES, type Scope } from "../../../lib/auth";
import { adminHttp, allPages, HTTP_MODE_OPTIONS, seg } from "../../admin-http";
import { intOption, option, positionals, requiredOption, UsageError } from "../../args";
import { requireTenant, withAdmin, withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { isoOrDash, print, printJson, printTable } from "../../output";
import { registerCommand } from "../registry";

const TENANT = { name: "tenant", value: "slug", description: "The tenant's slug", required: true };
const JSON_FLAG = { name: "json", description: "Machine-readable output (one JSON document)" };

function parseScopes(raw: string | undefined): Scope[] {
  if (raw === undefined) return [...SCOPES];
  const scopes = raw
    .split(",")
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new UsageError(`--scopes takes a comma-separated list of ${SCOPES.join(", ")} (got "${raw}")`);
  }
  return [...new Set(scopes)] as Scope[];
}

function keyState(key: { revoked_at: Date | null; expires_at: Date | null }): string {
  if (key.revoked_at) return "revoked";
  if (key.expires_at && new Date(key.expires_at).getTime() <= Date.now()) return "expired";
  return "active";
}

registerCommand({
  name: "keys",
  summary: "Create, list and revoke API keys",
  verbs: [
    {
      name: "create",
      args: "",
      summary: "Create an API key; the token is printed once, alone on the last line of stdout",
      options: [
        TENANT,
        { name: "scopes", value: "list", description: `Comma-separated scopes (default: ${SCOPES.join(",")})` },
        { name: "name", value: "N", description: 'A label for the key (default: "cli")' },
        { name: "expires-in-days", value: "N", description: "Expire the key after N days (default: never)" },
        ...HTTP_MODE_OPTIONS,
      ],
      notes: ["Example: TOKEN=$(runifold keys create --tenant tenant-acme --scopes mcp,tasks:read | tail -n 1)"],
      async run(parsed, io) {
        positionals(parsed, []);
        const slug = requiredOption(parsed, "tenant");
        const request = {
          name: option(parsed, "name") ?? "cli",
          scopes: parseScopes(option(parsed, "scopes")),
          expiresInDays: intOption(parsed, "expires-in-days", { min: 1, max: 36_500 }),
        };
        const http = adminHttp(parsed, io);
        const { keyId, token, scopes, expiresAt } = http
          ? await http.request<CreatedKey>("POST", `tenants/${seg(slug)}/keys`, request)
          : await withAdmin(io, async (ctx) => createKey(ctx, { ...request, tenantId: (await requireTenant(ctx.sql, slug)).id }));
        print(
          io.stdout,
          `Created key ${keyId} for ${slug} (scopes: ${scopes.join(",")}; expires: ${expiresAt ? isoOrDash(expiresAt) : "never"}). Token (shown once):`,
        );
        print(io.stdout, token);
        return EXIT.completed;
      },
    },
    {
      name: "list",
      args: "",
      summary: "List a tenant's keys (never their secrets)",
      options: [TENANT, JSON_FLAG, ...HTTP_MODE_OPTIONS],
      async run(parsed, io) {
        positionals(parsed, []);
        const slug = requiredOption(parsed, "tenant");
        const http = adminHttp(parsed, io);
        const keys = http
          ? await allPages<Omit<ApiKeyRow, "secret_sha256">>(http, `tenants/${seg(slug)}/keys`, "keys")
          : await withDatabase(io, async (sql) => listApiKeys(sql, (await requireTenant(sql, slug)).id));
        if (parsed.flags.has("json")) printJson(io, keys);
        else {
          printTable(
            io,
            ["KEY ID", "NAME", "SCOPES", "STATE", "EXPIRES", "LAST USED", "CREATED"],
            keys.map((k) => [
              k.id,
              k.name,
              k.scopes.join(","),
              keyState(k),
              isoOrDash(k.expires_at),
              isoOrDash(k.last_used_at),
              isoOrDash(k.created_at),
            ]),
          );
        }
        return EXIT.completed;
      },
    },
    {
      name: "revoke",
      args: "<keyId>",
      summary: "Revoke a key (takes effect on its next request)",
      options: [
        { name: "tenant", value: "slug", description: "The key's tenant (required in HTTP mode)" },
        JSON_FLAG,
        ...HTTP_MODE_OPTIONS,
      ],
      async run(parsed, io) {
        const [keyId] = positionals(parsed, ["keyId"]) as [string];
        const http = adminHttp(parsed, io);
        if (http) await http.request("DELETE", `tenants/${seg(requiredOption(parsed, "tenant"))}/keys/${seg(keyId)}`);
        else {
          const slug = option(parsed, "tenant");
          await withAdmin(io, async (ctx) =>
            slug
              ? revokeKey(ctx, { keyId, tenantId: (await requireTenant(ctx.sql, slug)).id })
              : revokeKeyAsAdmin(ctx, { keyId }),
          );
        }
        if (parsed.flags.has("json")) printJson(io, { keyId, revoked: true });
        else print(io.stdout, `Revoked key ${keyId}`);
        return EXIT.completed;
      },
    },
  ],
});
