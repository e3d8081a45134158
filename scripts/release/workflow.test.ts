import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// The publishing workflow is never run here (it needs the registry's credentials): this keeps what
// docs/releasing.md says about it true — the trigger, the OIDC permission provenance and trusted
// publishing need, an npm that can do trusted publishing, and the steps in their order.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
type Step = { run?: string; uses?: string; if?: string };
const workflow = parse(readFileSync(path.join(ROOT, ".github/workflows/release.yml"), "utf8")) as {
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  jobs: { publish: { steps: Step[]; env?: Record<string, string> } };
};
const steps = workflow.jobs.publish.steps;
const indexOf = (command: RegExp) => steps.findIndex((step) => command.test(step.run ?? ""));

describe(".github/workflows/release.yml", () => {
  it("runs on a version tag, with the id-token that provenance and trusted publishing need", () => {
    expect(workflow.on.push.tags).toEqual(["v[0-9]+.[0-9]+.[0-9]+*"]);
    expect(workflow.permissions).toEqual({ contents: "read", "id-token": "write" });
  });

  it("installs an npm that does trusted publishing (11.5.1 or later)", () => {
    const install = steps.find((step) => /npm install --global npm@/.test(step.run ?? ""))?.run ?? "";
    const [major, minor, patch] = (/npm@(\d+)\.(\d+)\.(\d+)/.exec(install) ?? []).slice(1).map(Number);
    expect([major, minor, patch].every(Number.isInteger)).toBe(true);
    expect((major as number) * 1e6 + (minor as number) * 1e3 + (patch as number)).toBeGreaterThanOrEqual(11_005_001);
  });

  it("checks, builds the app (for @runifold/server), then publishes the tag's version with provenance", () => {
    const order = [/^npm ci$/, /^npm run typecheck$/, /^npm run build$/, /^npm run release -- publish /].map(indexOf);
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    const publish = steps[order[3] as number]?.run ?? "";
    expect(publish).toContain("--provenance");
    expect(publish).toContain(`--expect-version "\${GITHUB_REF_NAME#v}"`);
  });

  it("writes a token line only when the NPM_TOKEN secret exists, naming the variable, never the token", () => {
    expect(workflow.jobs.publish.env?.NPM_TOKEN).toBe(`\${{ secrets.NPM_TOKEN }}`);
    const credentials = steps.find((step) => /_authToken/.test(step.run ?? ""));
    expect(credentials?.if).toBe(`\${{ env.NPM_TOKEN != '' }}`);
    expect(credentials?.run).toContain(`:_authToken" '\${NPM_TOKEN}'`);
  });
});
