import { addOperatorTenant, createOperator, type OperatorRole } from "../../../db/queries/operators";
import { isUniqueViolation } from "../../../db/sql";
import { hashPassword } from "../../../lib/auth";
import { CliError, option, positionals, requiredOption, UsageError } from "../../args";
import { requireTenant, withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { print, printJson } from "../../output";
import { registerCommand } from "../registry";

const ROLES: readonly OperatorRole[] = ["admin", "operator"];
const EMAIL = /^[^\s@]+@[^\s@]+$/;

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
        const email = requiredOption(parsed, "email").trim();
        const password = requiredOption(parsed, "password");
        const role = requiredOption(parsed, "role") as OperatorRole;
        if (!EMAIL.test(email)) throw new UsageError(`Invalid email "${email}"`);
        if (!ROLES.includes(role)) throw new UsageError(`--role must be admin or operator`);
        if (password.length < 12 || password.length > 200) throw new UsageError("--password must have 12 to 200 characters");
        const slug = option(parsed, "tenant");
        const passwordHash = await hashPassword(password);
        const created = await withDatabase(io, (sql) =>
          sql.begin(async (tx) => {
            const tenant = slug ? await requireTenant(tx, slug) : undefined;
            const operator = await createOperator(tx, { email, passwordHash, role, name: option(parsed, "name") }).catch(
              (error: unknown) => {
                throw isUniqueViolation(error)
                  ? new CliError(`An operator with email ${email.toLowerCase()} already exists`)
                  : error;
              },
            );
            if (tenant) await addOperatorTenant(tx, { operatorId: operator.id, tenantId: tenant.id });
            return { id: operator.id, email: operator.email, role: operator.role, tenants: tenant ? [tenant.slug] : [] };
          }),
        );
        if (parsed.flags.has("json")) printJson(io, created);
        else {
          const membership = created.tenants.length > 0 ? `, member of ${created.tenants.join(", ")}` : "";
          print(io.stdout, `Created ${created.role} ${created.email} (${created.id})${membership}`);
          if (role === "operator" && created.tenants.length === 0)
            io.stderr.write("note: an operator without tenants sees nothing; add --tenant <slug>\n");
        }
        return EXIT.completed;
      },
    },
  ],
});
