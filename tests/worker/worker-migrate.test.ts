import net, { type AddressInfo } from "node:net";
import { KNOWN_MIGRATIONS } from "@runifold/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyDatabase } from "../deploy/support";
import { freshDatabase } from "../helpers/db";
import { runToExit } from "./worker-bin";

// `runifold-worker migrate`: the SDK's one-shot schema job, as a real process per case (the packed
// tarball's copy runs in tests/deploy/standalone.test.ts).

let empty: Awaited<ReturnType<typeof emptyDatabase>>;
beforeAll(async () => {
  empty = await emptyDatabase("sdk_migrate");
});
afterAll(async () => {
  await empty?.drop();
});

describe("runifold-worker migrate", () => {
  it("applies every migration this SDK ships to an empty store, then finds nothing to do", async () => {
    const first = await runToExit(["migrate"], { DATABASE_URL: empty.url });
    expect(first.code, first.output).toBe(0);
    expect(first.output.split("\n").filter((line) => line.startsWith("applied "))).toEqual(
      KNOWN_MIGRATIONS.map((t) => `applied ${t}`),
    );
    const applied = await empty.sql`SELECT tag FROM runifold_migrations ORDER BY tag`;
    expect(applied.map((row) => row.tag)).toEqual([...KNOWN_MIGRATIONS].sort());
    const again = await runToExit(["migrate"], { DATABASE_URL: empty.url });
    expect(again.code, again.output).toBe(0);
    expect(again.output.trim()).toBe("migrations: up to date");
  });

  it("says so when the store also has migrations newer than this SDK, and changes nothing", async () => {
    const newer = await freshDatabase();
    try {
      await newer.sql`INSERT INTO runifold_migrations (tag, hash) VALUES ('9999_from_the_future', 'x')`;
      const { code, output } = await runToExit(["migrate"], { DATABASE_URL: newer.url });
      expect(code, output).toBe(0);
      expect(output).toContain("migrations: up to date");
      expect(output).toContain("newer than this SDK (9999_from_the_future)");
    } finally {
      await newer.drop();
    }
  });

  it("exits 3 without DATABASE_URL, and for an unreachable one without printing its password", async () => {
    const missing = await runToExit(["migrate"], { DATABASE_URL: "" });
    expect(missing.code, missing.output).toBe(3);
    expect(missing.output).toContain("DATABASE_URL is not set");
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const down = await runToExit(["migrate"], { DATABASE_URL: `postgres://runifold:s3cret-pw@127.0.0.1:${port}/x` });
    expect(down.code, down.output).toBe(3);
    expect(down.output).toContain(`cannot reach the database at postgres://runifold:***@127.0.0.1:${port}/x`);
    expect(down.output).not.toContain("s3cret-pw");
  });

  it("prints its usage for --help (exit 0) and refuses an unknown argument (exit 2)", async () => {
    const help = await runToExit(["migrate", "--help"], { DATABASE_URL: "" });
    expect(help.code).toBe(0);
    expect(help.output).toContain("Usage: runifold-worker migrate");
    const bad = await runToExit(["migrate", "--force"], { DATABASE_URL: "" });
    expect(bad.code).toBe(2);
    expect(bad.output).toContain("unknown argument: --force");
    // The worker's own usage names the subcommand.
    const top = await runToExit(["--help"], { DATABASE_URL: "" });
    expect(top.output).toContain("runifold-worker migrate");
  });
});
