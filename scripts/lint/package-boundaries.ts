// `npm run lint` (after biome): every workspace package under packages/ stands on its own.
//  - No file in a package reaches a path outside the package (a relative import climbing out of it,
//    an absolute path, or the app's `@/` alias): a package whose sources reach into the application
//    only builds by accident of bundling, and nobody can see from packages/ what it owns.
//  - Shipped sources (src/, tests aside) import only node built-ins, the package itself, and what its
//    package.json declares: anything else installs nowhere once the package is published.
// Biome's noRestrictedImports matches specifiers as written, not where they resolve, so this check
// resolves them; the specifiers themselves come from TypeScript's own pre-processor.
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export type BoundaryViolation = { file: string; specifier: string; reason: string };

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(["node_modules", "dist"]);
const TEST_FILE = /\.test\.(ts|tsx|mts)$/;
const BUILTINS = new Set(builtinModules);

type Manifest = {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(file);
    return entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [file] : [];
  });
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((imported) => imported.fileName);
}

/** The violations in one package directory (a folder holding a package.json). */
export function checkPackage(packageDir: string): BoundaryViolation[] {
  const root = path.resolve(packageDir);
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as Manifest;
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const violations: BoundaryViolation[] = [];
  for (const file of sourceFiles(root)) {
    const shipped = path.relative(root, file).startsWith(`src${path.sep}`) && !TEST_FILE.test(file);
    for (const specifier of importsOf(file)) {
      const at = { file: path.relative(process.cwd(), file), specifier };
      if (specifier.startsWith(".") || path.isAbsolute(specifier)) {
        const target = path.resolve(path.dirname(file), specifier);
        if (target !== root && !target.startsWith(root + path.sep))
          violations.push({ ...at, reason: `resolves outside ${manifest.name} (${path.relative(root, target)})` });
        continue;
      }
      if (specifier.startsWith("@/")) {
        violations.push({ ...at, reason: "the app's `@/` alias: a package never imports the application" });
        continue;
      }
      if (!shipped || specifier.startsWith("node:") || BUILTINS.has(specifier)) continue;
      if (!declared.has(packageNameOf(specifier)))
        violations.push({ ...at, reason: `${packageNameOf(specifier)} is not declared in ${manifest.name}'s package.json` });
    }
  }
  return violations;
}

/** Every package under `packagesDir`. */
export function checkPackages(packagesDir: string): BoundaryViolation[] {
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const dir = path.join(packagesDir, entry.name);
      try {
        readFileSync(path.join(dir, "package.json"));
      } catch {
        return [];
      }
      return checkPackage(dir);
    });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const packagesDir = path.resolve(process.argv[2] ?? "packages");
  const violations = checkPackages(packagesDir);
  for (const v of violations) process.stderr.write(`${v.file}: import "${v.specifier}" ${v.reason}\n`);
  if (violations.length > 0) {
    process.stderr.write(`package boundaries: ${violations.length} violation(s)\n`);
    process.exit(1);
  }
  process.stdout.write("package boundaries: every package imports only itself and what it declares\n");
}
