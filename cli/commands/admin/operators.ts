import type { OperatorRole } from "../../../db/queries/operators";
import { createOperator } from "../../../lib/admin";
import { option, positionals, requiredOption } from "../../args";
import { requireTenant, withAdmin } from "../../db";
import { EXIT } from "../../exit-codes";
import { print, printJson } from "../../output";
import { registerCommand } from "../registry";

registerCommand({
  name: "operators",
  summary: "Create operator logins for the web UI",
  verbs: [
    {
      name: "create",
      args: "",
      summary: "Create an operator (admin: every tenant; operator: its member tenants)",
      options: [
        { name: "email", value: "E", description: "Login email (case-insensitive)", required: true },
        { name: "password", value: "P", description: "Password, 12 to 200 characters (stored as a scrypt hash)", required: true },
        { name: "role", value: "admin|operator", description: "The operator's role", required: true },
        { name: "tenant", value: "slug", description: "Make the operator a member of this tenant" },
        { name: "name", value: "N", description: "Display name" },
        { name: "json", description: "Machine-readable output (one JSON document)" },
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const slug = option(parsed, "tenant");
        const request = {
          email: requiredOption(parsed, "email"),
          password: requiredOption(parsed, "password"),
          role: requiredOption(parsed, "role"),
          name: option(parsed, "name"),
        };
        const created = await withAdmin(io, async (ctx) => {
          const tenant = slug ? await requireTenant(ctx.sql, slug) : undefined;
          // The role is checked with the other rules by lib/admin (a usage error when it is neither).
          const operator = await createOperator(ctx, { ...request, role: request.role as OperatorRole, tenantId: tenant?.id });
          return { id: operator.id, email: operator.email, role: operator.role, tenants: tenant ? [tenant.slug] : [] };
        });
        if (parsed.flags.has("json")) printJson(io, created);
        else {
          const membership = created.tenants.length > 0 ? `, member of ${created.tenants.join(", ")}` : "";
          print(io.stdout, `Created ${created.role} ${created.email} (${created.id})${membership}`);
          if (created.role === "operator" && created.tenants.length === 0)
            io.stderr.write("note: an operator without tenants sees nothing; add --tenant <slug>\n");
        }
        return EXIT.completed;
      },
    },
  ],
});
