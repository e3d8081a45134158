// The packages a release ships: every workspace under packages/ that is not `"private": true`, found
// anew on each run (a package added later is released without touching this script), in dependency
// order so that each package's @runifold dependencies are on the registry before it is.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export type Manifest = {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

export type WorkspacePackage = { dir: string; manifestPath: string; manifest: Manifest };

/** The dependency fields whose ranges name other workspace packages (all of them are kept in sync). */
export const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const;

/** Fields that make a package need another at install time (devDependencies are bundled or unused). */
const INSTALL_FIELDS = ["dependencies", "peerDependencies", "optionalDependencies"] as const;

export function readManifest(manifestPath: string): Manifest {
  return JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
}

/** Every workspace package under `<root>/packages/*`, private ones included, sorted by directory. */
export function workspacePackages(root: string): WorkspacePackage[] {
  const packagesDir = path.join(root, "packages");
  if (!existsSync(packagesDir)) return [];
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(packagesDir, entry.name))
    .filter((dir) => existsSync(path.join(dir, "package.json")))
    .sort()
    .map((dir) => {
      const manifestPath = path.join(dir, "package.json");
      return { dir, manifestPath, manifest: readManifest(manifestPath) };
    });
}

/**
 * The publishable packages in dependency order. Refuses a publishable package that needs a private
 * one at install time (the registry would never have it: private code must be bundled and listed
 * under devDependencies, as @runifold/sdk does with @runifold/store), and a cycle.
 */
export function publishOrder(all: WorkspacePackage[]): WorkspacePackage[] {
  const byName = new Map(all.map((pkg) => [pkg.manifest.name, pkg]));
  const publishable = all.filter((pkg) => pkg.manifest.private !== true);
  const internalNeeds = (pkg: WorkspacePackage): string[] =>
    INSTALL_FIELDS.flatMap((field) => Object.keys(pkg.manifest[field] ?? {})).filter((name) => byName.has(name));

  for (const pkg of publishable) {
    for (const name of internalNeeds(pkg)) {
      if (byName.get(name)?.manifest.private === true) {
        throw new Error(
          `${pkg.manifest.name} needs the private package ${name} at install time; bundle it and list it under devDependencies`,
        );
      }
    }
  }

  const ordered: WorkspacePackage[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (pkg: WorkspacePackage, trail: string[]) => {
    const name = pkg.manifest.name;
    if (state.get(name) === "done") return;
    if (state.get(name) === "visiting") throw new Error(`dependency cycle: ${[...trail, name].join(" → ")}`);
    state.set(name, "visiting");
    for (const need of internalNeeds(pkg).sort()) visit(byName.get(need) as WorkspacePackage, [...trail, name]);
    state.set(name, "done");
    ordered.push(pkg);
  };
  for (const pkg of publishable) visit(pkg, []);
  return ordered;
}

/** The one version all publishable packages share (they are released in lockstep); throws otherwise. */
export function lockstepVersion(publishable: WorkspacePackage[]): string {
  const versions = new Set(publishable.map((pkg) => pkg.manifest.version));
  if (versions.size !== 1) {
    const listed = publishable.map((pkg) => `${pkg.manifest.name}@${pkg.manifest.version}`).join(", ");
    throw new Error(`the publishable packages must share one version (${listed}); run the version step first`);
  }
  return [...versions][0] as string;
}
