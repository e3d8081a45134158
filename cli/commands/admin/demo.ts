import { seedDemo } from "../../../workflows/demo/seed";
import { positionals } from "../../args";
import { withDatabase } from "../../db";
import { EXIT } from "../../exit-codes";
import { print, printJson } from "../../output";
import { registerCommand } from "../registry";

registerCommand({
  name: "demo",
  summary: "Demo data",
  verbs: [
    {
      name: "seed",
      args: "",
      summary: "Create the demo tenant, routes and key where missing (idempotent)",
      options: [
        { name: "conformance", description: "Also the conformance tenant with the MCP conformance suite's fixture tools" },
        { name: "json", description: "Machine-readable output (one JSON document)" },
      ],
      notes: [
        "Prints the first operator login when one was created, and a new demo API key (tenant-acme) alone on the last line of stdout when one was created.",
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const fixtures = parsed.flags.has("conformance") ? "conformance" : "none";
        const seeded = await withDatabase(io, (sql) => seedDemo(sql, { fixtures }));
        if (parsed.flags.has("json")) printJson(io, seeded);
        else {
          print(
            io.stdout,
            seeded.created
              ? `Seeded the demo: tenant-acme${fixtures === "conformance" ? " and conformance" : ""}.`
              : "The demo data is already present; nothing changed.",
          );
          if (seeded.operator)
            print(io.stdout, `Operator login (shown once): ${seeded.operator.email} / ${seeded.operator.password}`);
          if (seeded.apiKey) {
            print(io.stdout, "Demo API key for tenant-acme (shown once):");
            print(io.stdout, seeded.apiKey);
          }
        }
        return EXIT.completed;
      },
    },
  ],
});
