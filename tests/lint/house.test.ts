import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPackages } from "../../scripts/lint/package-boundaries";

// The two house rules `npm run lint` adds to the import boundaries (boundaries.test.ts): no import
// cycle anywhere (biome's noImportCycles, type-only imports included), and no package under
// packages/ importing outside itself (scripts/lint/package-boundaries.ts). Each is run on a fixture
// that breaks it, beside a control that does not, so the rule is shown to fail as well as pass.

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIOME = path.join(ROOT, "node_modules", ".bin", "biome");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");
const run = promisify(execFile);

let dir: string;

function write(file: string, source: string) {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), `${source}\n`);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "runifold-house-"));
  copyFileSync(path.join(ROOT, "biome.json"), path.join(dir, "biome.json"));
  // A cycle through a type-only import (erased at run time, still a tangle), and a value cycle.
  write("lib/probe/a.ts", 'import type { B } from "./b";\nexport type A = { b?: B };');
  write("lib/probe/b.ts", 'import type { A } from "./a";\nexport type B = { a?: A };');
  write("packages/client/src/one.ts", 'import { two } from "./two";\nexport const one = () => two();');
  write("packages/client/src/two.ts", 'import { one } from "./one";\nexport const two = (): number => (one ? 2 : 0);');
  // Controls: the same shapes without the back edge.
  write("lib/probe/c.ts", 'import type { D } from "./d";\nexport type C = { d?: D };');
  write("lib/probe/d.ts", "export type D = { n: number };");

  write("packages/good/package.json", JSON.stringify({ name: "@probe/good", dependencies: { zod: "1" } }));
  write(
    "packages/good/src/index.ts",
    'import { z } from "zod";\nimport { readFileSync } from "node:fs";\nexport { x } from "./x";',
  );
  write("packages/good/src/x.ts", "export const x = 1;");
  write("packages/good/src/x.test.ts", 'import { it } from "vitest";\nit("x", () => {});');
  write("packages/bad/package.json", JSON.stringify({ name: "@probe/bad" }));
  write("packages/bad/src/deep/climb.ts", 'import type { Sql } from "../../../../db/client";\nexport type S = Sql;');
  write("packages/bad/src/alias.ts", 'export { env } from "@/lib/env";');
  write("packages/bad/src/undeclared.ts", 'export { z } from "zod";');
  write("packages/bad/src/dynamic.ts", 'export const load = () => import("../../good/src/x");');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("no import cycles (biome noImportCycles)", () => {
  let cyclic: string[] = [];
  beforeAll(async () => {
    const result = await run(BIOME, ["lint", "--reporter=json", "--max-diagnostics=none", "."], { cwd: dir }).catch(
      (error: { stdout: string }) => error,
    );
    const report = JSON.parse(result.stdout) as { diagnostics: { category?: string; location?: unknown }[] };
    cyclic = report.diagnostics
      .filter((d) => d.category === "lint/suspicious/noImportCycles")
      .map((d) => JSON.stringify(d.location ?? {}));
  }, 60_000);

  it.each(["lib/probe/a.ts", "lib/probe/b.ts", "packages/client/src/one.ts", "packages/client/src/two.ts"])(
    "rejects %s (part of a cycle)",
    (file) => {
      expect(cyclic.some((location) => location.includes(file))).toBe(true);
    },
  );

  it.each(["lib/probe/c.ts", "lib/probe/d.ts"])("allows %s (no back edge)", (file) => {
    expect(cyclic.some((location) => location.includes(file))).toBe(false);
  });
});

describe("packages import only themselves and what they declare", () => {
  it("reports each way out of a package, and nothing in a package that stays inside", () => {
    const found = checkPackages(path.join(dir, "packages")).map((v) => `${path.basename(v.file)} ${v.specifier}`);
    expect(found.sort()).toEqual(
      ["alias.ts @/lib/env", "climb.ts ../../../../db/client", "dynamic.ts ../../good/src/x", "undeclared.ts zod"].sort(),
    );
  });

  it("fails the lint command on a violation and passes the repository's own packages", async () => {
    const failing = await run(TSX, ["scripts/lint/package-boundaries.ts", path.join(dir, "packages")], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/climb\.ts: import "\.\.\/\.\.\/\.\.\/\.\.\/db\/client" resolves outside @probe\/bad/);
    const passing = await run(TSX, ["scripts/lint/package-boundaries.ts", "packages"], { cwd: ROOT });
    expect(passing.stdout).toMatch(/package boundaries: every package/);
  }, 60_000);
});
