import { createTenant, listTenants } from "../../../db/queries/tenants";
import { isUniqueViolation } from "../../../db/sql";
import { CliError, option, positionals, UsageError } from "../../args";
import { withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { isoOrDash, print, printJson, printTable } from "../../output";
import { registerCommand } from "../registry";

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const JSON_FLAG = { name: "json", description: "Machine-readable output (one JSON document)" };

registerCommand({
  name: "tenants",
  summary: "Create and list tenants",
  verbs: [
    {
      name: "create",
      args: "<slug>",
      summary: "Create a tenant (slug: lowercase letters, digits and dashes)",
      options: [{ name: "name", value: "N", description: "Display name (default: the slug)" }, JSON_FLAG],
      async run(parsed, io) {
        const [slug] = positionals(parsed, ["slug"]) as [string];
        if (!SLUG.test(slug)) throw new UsageError(`Invalid slug "${slug}": use 1-63 lowercase letters, digits and dashes`);
        const name = option(parsed, "name") ?? slug;
        const tenant = await withDatabase(io, async (sql) => {
          try {
            return await createTenant(sql, { slug, name });
          } catch (error) {
            if (isUniqueViolation(error)) throw new CliError(`Tenant "${slug}" already exists`);
            throw error;
          }
        });
        if (parsed.flags.has("json")) printJson(io, tenant);
        else print(io.stdout, `Created tenant ${tenant.slug} (${tenant.id})`);
        return EXIT.completed;
      },
    },
    {
      name: "list",
      args: "",
      summary: "List tenants",
      options: [JSON_FLAG],
      async run(parsed, io) {
        positionals(parsed, []);
        const tenants = await withDatabase(io, (sql) => listTenants(sql));
        if (parsed.flags.has("json")) printJson(io, tenants);
        else {
          printTable(
            io,
            ["SLUG", "NAME", "ID", "STATE", "CREATED"],
            tenants.map((t) => [t.slug, t.name, t.id, t.disabled_at ? "disabled" : "active", isoOrDash(t.created_at)]),
          );
        }
        return EXIT.completed;
      },
    },
  ],
});
