import { type DefinitionSummary, listPublishedDefinitions } from "../../../lib/admin";
import { adminHttp, allPages, HTTP_MODE_OPTIONS } from "../../admin-http";
import { positionals } from "../../args";
import { withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { printJson, printTable } from "../../output";
import { registerCommand } from "../registry";

registerCommand({
  name: "definitions",
  summary: "Workflow definitions workers published, and which are served now",
  verbs: [
    {
      name: "list",
      args: "",
      summary: "List published definitions (name@version, revision, served by how many online workers)",
      options: [{ name: "json", description: "Machine-readable output (one JSON document)" }, ...HTTP_MODE_OPTIONS],
      async run(parsed, io) {
        positionals(parsed, []);
        const http = adminHttp(parsed, io);
        const definitions = http
          ? await allPages<DefinitionSummary>(http, "definitions", "definitions")
          : await withDatabase(io, (sql) => listPublishedDefinitions({ sql }));
        if (parsed.flags.has("json")) printJson(io, definitions);
        else {
          printTable(
            io,
            ["WORKFLOW", "REVISION", "SERVED", "TITLE", "PREFLIGHT", "LAST SEEN"],
            definitions.map((d) => [
              d.key,
              String(d.revision),
              d.servedBy > 0 ? `yes (${d.servedBy})` : "no",
              d.title ?? "-",
              d.preflightKeys.join(",") || "-",
              d.lastSeenAt,
            ]),
          );
        }
        return EXIT.completed;
      },
    },
  ],
});
