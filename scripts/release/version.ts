// The version step of a release: one new version for every publishable package, the ranges that name
// them moved along in every manifest of the repository, the lockfile refreshed by npm, and a
// CHANGELOG.md section. It commits and tags nothing: the releaser reviews the diff, then commits and
// pushes the tag that starts the publishing workflow (docs/releasing.md).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { updateChangelog } from "./changelog";
import { nextVersion, rewriteManifestFile } from "./versions";
import { lockstepVersion, publishOrder, workspacePackages } from "./workspace";

export type VersionOptions = {
  root: string;
  /** `patch`, `minor`, `major` or an explicit x.y.z[-pre]. */
  target: string;
  /** A file with the release notes (markdown); the commit subjects since the last tag otherwise. */
  notesFile?: string;
  date: Date;
  log: (line: string) => void;
};

export type VersionResult = { from: string; to: string; changedFiles: string[] };

export function bumpVersions(options: VersionOptions): VersionResult {
  const { root, log } = options;
  const all = workspacePackages(root);
  const publishable = publishOrder(all);
  if (publishable.length === 0) throw new Error(`no publishable package under ${path.join(root, "packages")}`);
  const from = lockstepVersion(publishable);
  const to = nextVersion(from, options.target);
  const released = new Set(publishable.map((pkg) => pkg.manifest.name));

  const changedFiles: string[] = [];
  const rootManifest = path.join(root, "package.json");
  if (existsSync(rootManifest) && rewriteManifestFile(rootManifest, released, to)) changedFiles.push(rootManifest);
  for (const pkg of all) {
    const own = released.has(pkg.manifest.name) ? to : undefined;
    if (rewriteManifestFile(pkg.manifestPath, released, to, own)) changedFiles.push(pkg.manifestPath);
  }

  const lock = path.join(root, "package-lock.json");
  if (existsSync(lock)) {
    // npm records each workspace's version and range in the lock; it rewrites them itself.
    log("npm install --package-lock-only");
    const result = spawnSync("npm", ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
    });
    if (result.status !== 0) throw new Error(`npm install --package-lock-only failed (exit ${result.status})`);
    changedFiles.push(lock);
  }

  updateChangelog(root, to, options.notesFile, options.date);
  changedFiles.push(path.join(root, "CHANGELOG.md"));
  log(`${from} → ${to}: ${publishable.map((pkg) => pkg.manifest.name).join(", ")}`);
  return { from, to, changedFiles };
}
