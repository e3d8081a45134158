import { listAudit } from "../../../lib/admin";
import { intOption, option, positionals } from "../../args";
import { requireTenant, withAdmin } from "../../db";
import { EXIT } from "../../exit-codes";
import { printJson, printTable } from "../../output";
import { registerCommand } from "../registry";

registerCommand({
  name: "audit",
  summary: "Read the stored audit trail (sign-ins and every admin action)",
  verbs: [
    {
      name: "list",
      args: "",
      summary: "List audit events, newest first",
      options: [
        { name: "limit", value: "N", description: "At most N events (1 to 1000, default 100)" },
        { name: "action", value: "A", description: "Only this action, or a prefix ending in a dot (auth.)" },
        { name: "tenant", value: "slug", description: "Only events about this tenant" },
        { name: "before", value: "ID", description: "Events older than this id (the next page)" },
        { name: "json", description: "Machine-readable output (one JSON document)" },
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const slug = option(parsed, "tenant");
        const events = await withAdmin(io, async (ctx) =>
          listAudit(ctx, {
            limit: intOption(parsed, "limit", { min: 1, max: 1_000 }) ?? 100,
            beforeId: intOption(parsed, "before", { min: 1 }),
            action: option(parsed, "action"),
            tenantId: slug ? (await requireTenant(ctx.sql, slug)).id : undefined,
          }),
        );
        if (parsed.flags.has("json")) printJson(io, events);
        else
          printTable(
            io,
            ["ID", "AT", "ACTION", "ACTOR", "ADDRESS", "DETAILS"],
            events.map((e) => [String(e.id), e.at, e.action, e.actor, e.address ?? "-", JSON.stringify(e.fields)]),
          );
        return EXIT.completed;
      },
    },
  ],
});
