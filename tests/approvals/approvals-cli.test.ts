import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastJson, runCli } from "../cli/run-cli";
import { waitFor } from "../helpers/wait-for";
import { type ApprovalFixture, startApprovalFixture } from "./approval-fixture";

/** `runifold approvals list|decide|verify|rotate-key` and `operators groups set` (docs/approvals.md, docs/cli.md). */
let fx: ApprovalFixture;
let dbEnv: Record<string, string>;
beforeAll(async () => {
  fx = await startApprovalFixture();
  dbEnv = { DATABASE_URL: fx.url, NEXTAUTH_SECRET: process.env.NEXTAUTH_SECRET as string };
});
afterAll(async () => {
  await fx?.close();
});

const dir = tmpdir();

describe("the approvals CLI", { timeout: 120_000 }, () => {
  it("sets groups (audited), lists and decides over HTTP, and verifies the receipt offline; one changed byte fails", async () => {
    const grouped = await runCli(["operators", "groups", "set", "d@acme.test", "finance,board", "--json"], dbEnv);
    expect(grouped.code).toBe(0);
    expect(lastJson(grouped)).toEqual({ email: "d@acme.test", groups: ["board", "finance"] });
    const [audit] = await fx.sql`SELECT fields FROM audit_events WHERE action = 'operator.groups.set'`;
    expect(audit?.fields).toMatchObject({ targetOperatorId: fx.d.id, groups: "board,finance" });
    expect((await runCli(["operators", "groups", "add", "d@acme.test", "x"], dbEnv)).code).toBe(4);

    const taskId = await fx.start({ approvers: { groups: ["finance"] }, quorum: 1 });
    await fx.parked(taskId);
    const http = { RUNIFOLD_URL: `${fx.origin}/api/mcp` };
    const listed = await runCli(["approvals", "list", "--json"], { ...http, RUNIFOLD_KEY: fx.d.token });
    expect(listed.code).toBe(0);
    expect(lastJson(listed).approvals).toMatchObject([{ taskId, key: "pay", canDecide: true }]);

    const decided = await runCli(["approvals", "decide", taskId, "pay", "approve", "--comment", "ok", "--json"], {
      ...http,
      RUNIFOLD_KEY: fx.d.token,
    });
    expect(decided.code).toBe(0);
    expect(lastJson(decided)).toMatchObject({ outcome: "approved", decisions: [{ email: "d@acme.test", channel: "cli" }] });

    const [done] = await waitFor(
      () => fx.sql`SELECT payload->'result' AS result FROM run_events WHERE run_id = ${taskId} AND type = 'completed'`,
      (rows) => rows.length === 1,
      { describe: "the run to complete" },
    );
    const resultFile = join(dir, `result-${taskId}.json`);
    await writeFile(resultFile, JSON.stringify(done?.result));
    const receipt = done?.result?._meta?.["io.runifold/approvals"]?.[0] as string;
    const jwksFile = join(dir, `jwks-${taskId}.json`);
    await writeFile(jwksFile, await (await fetch(`${fx.origin}/.well-known/runifold/approvals-jwks.json`)).text());

    const offline = await runCli(["approvals", "verify", resultFile, "--jwks", jwksFile], {});
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain(`valid: approved (pay) of task ${taskId}, tenant acme, 1 decision(s)`);
    const byUrl = await runCli(
      ["approvals", "verify", resultFile, "--jwks", `${fx.origin}/.well-known/runifold/approvals-jwks.json`],
      {},
    );
    expect(byUrl.code).toBe(0);

    const at = receipt.lastIndexOf(".") - 3;
    const tamperedFile = join(dir, `tampered-${taskId}.jws`);
    await writeFile(tamperedFile, receipt.slice(0, at) + (receipt[at] === "A" ? "B" : "A") + receipt.slice(at + 1));
    const tampered = await runCli(["approvals", "verify", tamperedFile, "--jwks", jwksFile], {});
    expect(tampered.code).toBe(4);
    expect(tampered.stderr).toContain("INVALID");
    const noKeys = await runCli(["approvals", "verify", resultFile, "--jwks", join(dir, "no-such-jwks.json")], {});
    expect(noKeys.code).toBe(4);
    expect(noKeys.stderr).toContain("Cannot read the JWKS file");

    // A new key signs from now on; the old receipt still verifies against the published keys.
    const rotated = await runCli(["approvals", "rotate-key", "--json"], dbEnv);
    expect(rotated.code).toBe(0);
    const jwks = (await (await fetch(`${fx.origin}/.well-known/runifold/approvals-jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    expect(jwks.keys).toHaveLength(2);
    expect(jwks.keys[0]?.kid).toBe(lastJson(rotated).kid);
    expect(
      (await runCli(["approvals", "verify", resultFile, "--jwks", `${fx.origin}/.well-known/runifold/approvals-jwks.json`], {}))
        .code,
    ).toBe(0);
  });
});
