import type { TenantRow } from "../../../db/queries/tenants";
import { listTenants } from "../../../db/queries/tenants";
import { createTenant, setTenantDisabled, setTenantHandleTools, setTenantMaxConcurrentRuns } from "../../../lib/admin";
import { adminHttp, allPages, HTTP_MODE_OPTIONS } from "../../admin-http";
import { option, positionals, UsageError } from "../../args";
import { requireTenant, withAdmin, withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { isoOrDash, print, printJson, printTable } from "../../output";
import { registerCommand } from "../registry";

const JSON_FLAG = { name: "json", description: "Machine-readable output (one JSON document)" };

registerCommand({
  name: "tenants",
  summary: "Create, list, disable, enable and configure tenants",
  verbs: [
    {
      name: "create",
      args: "<slug>",
      summary: "Create a tenant (slug: 1-63 lowercase letters, digits and dashes; a letter or digit at each end)",
      options: [{ name: "name", value: "N", description: "Display name (default: the slug)" }, JSON_FLAG],
      async run(parsed, io) {
        const [slug] = positionals(parsed, ["slug"]) as [string];
        const tenant = await withAdmin(io, (ctx) => createTenant(ctx, { slug, name: option(parsed, "name") }));
        if (parsed.flags.has("json")) printJson(io, tenant);
        else print(io.stdout, `Created tenant ${tenant.slug} (${tenant.id})`);
        return EXIT.completed;
      },
    },
    {
      name: "list",
      args: "",
      summary: "List tenants (HTTP mode: those the token's operator sees)",
      options: [JSON_FLAG, ...HTTP_MODE_OPTIONS],
      async run(parsed, io) {
        positionals(parsed, []);
        const http = adminHttp(parsed, io);
        const tenants = http
          ? await allPages<TenantRow>(http, "tenants", "tenants")
          : await withDatabase(io, (sql) => listTenants(sql));
        if (parsed.flags.has("json")) printJson(io, tenants);
        else {
          printTable(
            io,
            ["SLUG", "NAME", "ID", "STATE", "HANDLES", "CREATED"],
            tenants.map((t) => [
              t.slug,
              t.name,
              t.id,
              t.disabled_at ? "disabled" : "active",
              t.handle_tools ? "on" : "off",
              isoOrDash(t.created_at),
            ]),
          );
        }
        return EXIT.completed;
      },
    },
    {
      name: "set",
      args: "<slug>",
      summary: "Change a tenant's settings",
      options: [
        {
          name: "handle-tools",
          value: "on|off",
          description:
            "Task handles for clients without tasks: the runifold_task_* tools are listed to them and a call that outlives its deadline answers with a handle (default on)",
        },
        {
          name: "max-concurrent-runs",
          value: "N|default",
          description:
            "At most N of the tenant's runs leased at once across every worker; default: the workers' share of the fleet's slots (RUNIFOLD_TENANT_SHARE)",
        },
        JSON_FLAG,
      ],
      async run(parsed, io) {
        const [slug] = positionals(parsed, ["slug"]) as [string];
        const handles = option(parsed, "handle-tools");
        const max = option(parsed, "max-concurrent-runs");
        if (handles === undefined && max === undefined)
          throw new UsageError("tenants set needs --handle-tools on|off or --max-concurrent-runs N|default");
        if (handles !== undefined && handles !== "on" && handles !== "off")
          throw new UsageError("--handle-tools must be on or off");
        if (max !== undefined && max !== "default" && !/^[1-9]\d{0,6}$/.test(max))
          throw new UsageError("--max-concurrent-runs must be a whole number from 1 to 1000000, or default");
        const lines: string[] = [];
        const tenant = await withAdmin(io, async (ctx) => {
          const tenantId = (await requireTenant(ctx.sql, slug)).id;
          let row: TenantRow | undefined;
          if (handles !== undefined) {
            row = await setTenantHandleTools(ctx, { tenantId, on: handles === "on" });
            lines.push(`Task handles for clients without tasks are ${handles} for tenant ${row.slug}`);
          }
          if (max !== undefined) {
            row = await setTenantMaxConcurrentRuns(ctx, { tenantId, max: max === "default" ? null : Number(max) });
            lines.push(
              max === "default"
                ? `Tenant ${row.slug} may hold the workers' share of the fleet's slots`
                : `Tenant ${row.slug} may hold at most ${max} runs at once`,
            );
          }
          return row as TenantRow;
        });
        if (parsed.flags.has("json")) printJson(io, tenant);
        else for (const line of lines) print(io.stdout, line);
        return EXIT.completed;
      },
    },
    ...(["disable", "enable"] as const).map((verb) => ({
      name: verb,
      args: "<slug>",
      summary:
        verb === "disable"
          ? "Disable a tenant: its keys, tasks and tools answer like an unknown tenant's until enabled"
          : "Enable a disabled tenant",
      options: [JSON_FLAG],
      async run(parsed: Parameters<typeof positionals>[0], io: Parameters<typeof withAdmin>[0]) {
        const [slug] = positionals(parsed, ["slug"]) as [string];
        const tenant = await withAdmin(io, async (ctx) =>
          setTenantDisabled(ctx, { tenantId: (await requireTenant(ctx.sql, slug)).id, disabled: verb === "disable" }),
        );
        if (parsed.flags.has("json")) printJson(io, tenant);
        else print(io.stdout, `${verb === "disable" ? "Disabled" : "Enabled"} tenant ${tenant.slug}`);
        return EXIT.completed;
      },
    })),
  ],
});
