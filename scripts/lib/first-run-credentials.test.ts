import { describe, expect, it } from "vitest";
import { credentialLines } from "./first-run-credentials";

describe("first-run credential lines", () => {
  it("gives the demo key with a ready-made export line for the CLI when the MCP endpoint is known", () => {
    const lines = credentialLines(
      { apiKey: "rf_demo", operator: { email: "admin@example.com", password: "pw" } },
      "http://127.0.0.1:3000/api/mcp",
    );
    expect(lines).toEqual([
      "operator login: admin@example.com / pw",
      "demo API key:   rf_demo",
      "for the CLI:    export RUNIFOLD_KEY=rf_demo RUNIFOLD_URL=http://127.0.0.1:3000/api/mcp",
    ]);
  });

  it("prints no export line without a key (the migrate job's first admin)", () => {
    expect(credentialLines({ operator: { email: "a@b.c", password: "pw" } }, "http://x/api/mcp")).toEqual([
      "operator login: a@b.c / pw",
    ]);
  });
});
