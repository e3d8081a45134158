import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withSection } from "./changelog";
import { provenanceAvailable, publish, tarballName } from "./publish";
import { bumpVersions } from "./version";
import { movedRange, nextVersion, rewriteManifest } from "./versions";
import { publishOrder, workspacePackages } from "./workspace";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository with a root app and workspaces written as biome formats them (2 spaces, one key a line). */
function repository(packages: Record<string, object>, rootDeps: Record<string, string> = {}): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "runifold-release-"));
  made.push(root);
  const write = (file: string, manifest: object) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  };
  write(path.join(root, "package.json"), { name: "app", version: "0.1.0", private: true, dependencies: rootDeps });
  for (const [dir, manifest] of Object.entries(packages)) write(path.join(root, "packages", dir, "package.json"), manifest);
  return root;
}
const manifest = (root: string, dir: string) =>
  JSON.parse(readFileSync(path.join(root, "packages", dir, "package.json"), "utf8"));

describe("release versions", () => {
  it("bumps as semver does, and refuses an explicit version that goes back", () => {
    expect(nextVersion("0.1.0", "patch")).toBe("0.1.1");
    expect(nextVersion("0.1.3", "minor")).toBe("0.2.0");
    expect(nextVersion("0.9.3", "major")).toBe("1.0.0");
    expect(nextVersion("1.2.0-rc.1", "patch")).toBe("1.2.0");
    expect(nextVersion("0.1.0", "1.0.0-beta.1")).toBe("1.0.0-beta.1");
    expect(() => nextVersion("0.2.0", "0.1.9")).toThrow(/not after/);
    expect(() => nextVersion("0.2.0", "0.2.0")).toThrow(/not after/);
    expect(() => nextVersion("0.2.0", "two")).toThrow(/not a version/);
  });

  it("moves a range keeping its operator, and leaves other shapes alone", () => {
    expect(movedRange("0.1.0", "0.2.0")).toBe("0.2.0");
    expect(movedRange("^0.1.0", "0.2.0")).toBe("^0.2.0");
    expect(movedRange("~0.1.0", "0.2.0")).toBe("~0.2.0");
    expect(movedRange("*", "0.2.0")).toBe("*");
  });

  it("rewrites a manifest as text: only the version and the released ranges change", () => {
    const text = '{\n  "name": "@x/b",\n  "version": "0.1.0",\n  "dependencies": { "@x/a": "^0.1.0", "zod": "0.1.0" }\n}\n';
    expect(rewriteManifest(text, new Set(["@x/a"]), "0.2.0", "0.2.0")).toBe(
      '{\n  "name": "@x/b",\n  "version": "0.2.0",\n  "dependencies": { "@x/a": "^0.2.0", "zod": "0.1.0" }\n}\n',
    );
  });
});

describe("release packages", () => {
  it("publishes every non-private workspace, each after the workspaces it needs", () => {
    const root = repository({
      a: { name: "@x/cli", version: "0.1.0", dependencies: { "@x/client": "0.1.0" } },
      b: { name: "@x/client", version: "0.1.0" },
      c: { name: "@x/store", version: "0.1.0", private: true },
      d: { name: "@x/sdk", version: "0.1.0", devDependencies: { "@x/store": "0.1.0" } },
      e: { name: "@x/server", version: "0.1.0", peerDependencies: { "@x/sdk": "0.1.0", "@x/cli": "0.1.0" } },
    });
    const names = publishOrder(workspacePackages(root)).map((pkg) => pkg.manifest.name);
    expect(names).toEqual(["@x/client", "@x/cli", "@x/sdk", "@x/server"]);
    expect(tarballName("@x/cli", "1.2.3")).toBe("x-cli-1.2.3.tgz");
  });

  it("refuses a publishable package that needs a private one when installed", () => {
    const root = repository({
      a: { name: "@x/sdk", version: "0.1.0", dependencies: { "@x/store": "0.1.0" } },
      b: { name: "@x/store", version: "0.1.0", private: true },
    });
    expect(() => publishOrder(workspacePackages(root))).toThrow(/private package @x\/store/);
  });

  it("versions in lockstep, moves every range naming a released package, and writes the changelog", () => {
    const root = repository(
      {
        client: { name: "@x/client", version: "0.1.0" },
        sdk: { name: "@x/sdk", version: "0.1.0", devDependencies: { "@x/store": "0.1.0" } },
        store: { name: "@x/store", version: "0.1.0", private: true },
        cli: { name: "@x/cli", version: "0.1.0", dependencies: { "@x/client": "^0.1.0", zod: "0.1.0" } },
      },
      { "@x/sdk": "0.1.0", "@x/store": "0.1.0" },
    );
    const notes = path.join(root, "notes.md");
    writeFileSync(notes, "- First release.\n");
    const result = bumpVersions({
      root,
      target: "minor",
      notesFile: notes,
      date: new Date("2026-12-03T12:00:00Z"),
      log: () => {},
    });
    expect(result).toMatchObject({ from: "0.1.0", to: "0.2.0" });
    expect(manifest(root, "client").version).toBe("0.2.0");
    expect(manifest(root, "cli")).toMatchObject({ version: "0.2.0", dependencies: { "@x/client": "^0.2.0", zod: "0.1.0" } });
    // The private store keeps its version, and so do the ranges naming it.
    expect(manifest(root, "store").version).toBe("0.1.0");
    expect(manifest(root, "sdk")).toMatchObject({ version: "0.2.0", devDependencies: { "@x/store": "0.1.0" } });
    const app = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
    expect(app).toMatchObject({ version: "0.1.0", dependencies: { "@x/sdk": "0.2.0", "@x/store": "0.1.0" } });
    const changelog = readFileSync(path.join(root, "CHANGELOG.md"), "utf8");
    expect(changelog).toMatch(/^# Changelog\n/);
    expect(changelog).toContain("## 0.2.0 — 2026-12-03\n\n- First release.\n");
  });

  it("refuses packages whose versions drifted apart", () => {
    const root = repository({ a: { name: "@x/a", version: "0.1.0" }, b: { name: "@x/b", version: "0.2.0" } });
    expect(() => bumpVersions({ root, target: "patch", date: new Date(), log: () => {} })).toThrow(/share one version/);
  });
});

describe("release publish", () => {
  const options = (root: string) => ({ root, out: path.join(root, "out"), dryRun: true, packOnly: false, log: () => {} });

  it("refuses, before packing anything, a tag that is not the packages' version", () => {
    const root = repository({ a: { name: "@x/a", version: "0.2.0" } });
    expect(() => publish({ ...options(root), provenance: false, expectVersion: "0.2.1" })).toThrow(
      /packages are at 0.2.0, but this release is 0.2.1/,
    );
  });

  it("refuses provenance for a package without a repository field (the registry would reject it)", () => {
    const root = repository({ a: { name: "@x/a", version: "0.2.0" } });
    expect(() => publish({ ...options(root), provenance: true })).toThrow(/"repository" field .* @x\/a/);
  });

  it("turns provenance on by default only in GitHub Actions with an id-token", () => {
    expect(provenanceAvailable({ GITHUB_ACTIONS: "true", ACTIONS_ID_TOKEN_REQUEST_URL: "https://token" })).toBe(true);
    expect(provenanceAvailable({ GITHUB_ACTIONS: "true" })).toBe(false);
    expect(provenanceAvailable({ CI: "true" })).toBe(false);
  });
});

describe("release changelog", () => {
  it("puts the newest section first and refuses a version twice", () => {
    const first = withSection("", "0.1.0", "2026-12-01", "- one");
    const second = withSection(first, "0.2.0", "2026-12-02", "- two\n");
    expect(second.indexOf("## 0.2.0")).toBeLessThan(second.indexOf("## 0.1.0"));
    expect(second).toContain("## 0.2.0 — 2026-12-02\n\n- two\n\n## 0.1.0 — 2026-12-01\n\n- one\n");
    expect(() => withSection(second, "0.1.0", "2026-12-03", "- again")).toThrow(/already has a section/);
  });
});
