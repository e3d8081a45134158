// Lockstep versions: every publishable package gets the same new version, and every manifest of the
// repository (the root app's and each workspace's, private ones included) that names one of them has
// its range moved along, keeping the range's operator (`0.1.0` → `0.2.0`, `^0.1.0` → `^0.2.0`).
// Manifests are edited as text, not re-serialized, so their formatting and key order never change.
import { readFileSync, writeFileSync } from "node:fs";
import { DEPENDENCY_FIELDS, type Manifest } from "./workspace";

const VERSION = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

export type Bump = "patch" | "minor" | "major";

export function isBump(value: string): value is Bump {
  return value === "patch" || value === "minor" || value === "major";
}

function parse(version: string): [number, number, number, string | undefined] {
  const match = VERSION.exec(version);
  if (!match) throw new Error(`not a version (x.y.z or x.y.z-pre): ${version}`);
  return [Number(match[1]), Number(match[2]), Number(match[3]), match[4]];
}

/**
 * The version after `current`: `patch|minor|major` as semver does (a prerelease's patch bump is its
 * release: 1.2.0-rc.1 → 1.2.0), or an explicit x.y.z[-pre] that must not be lower than `current`.
 */
export function nextVersion(current: string, target: string): string {
  const [major, minor, patch, pre] = parse(current);
  if (target === "major") return `${major + 1}.0.0`;
  if (target === "minor") return `${major}.${minor + 1}.0`;
  if (target === "patch") return pre ? `${major}.${minor}.${patch}` : `${major}.${minor}.${patch + 1}`;
  const [nextMajor, nextMinor, nextPatch] = parse(target);
  const order = nextMajor - major || nextMinor - minor || nextPatch - patch;
  if (order < 0 || target === current) throw new Error(`${target} is not after the current version ${current}`);
  return target;
}

/** A prerelease (x.y.z-pre) goes to the `next` dist-tag, never to `latest`. */
export function isPrerelease(version: string): boolean {
  return parse(version)[3] !== undefined;
}

/** `range` moved to `version`, keeping its operator; ranges of other shapes (`*`, `workspace:*`) are kept. */
export function movedRange(range: string, version: string): string {
  const match = /^(\^|~|>=|=)?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/.exec(range);
  return match ? `${match[1] ?? ""}${version}` : range;
}

const quoted = (text: string) => JSON.stringify(text).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A manifest's text with its own version set (when `ownVersion` is given) and every range naming one
 * of `released` moved to `version`. Checked by parsing: the result must be the expected manifest.
 */
export function rewriteManifest(text: string, released: Set<string>, version: string, ownVersion?: string): string {
  const before = JSON.parse(text) as Manifest;
  const expected = structuredClone(before);
  let next = text;
  if (ownVersion !== undefined) {
    expected.version = ownVersion;
    // The top-level "version" key is the first one at two spaces of indentation.
    next = next.replace(new RegExp(`^(\\s*"version":\\s*)${quoted(before.version)}`, "m"), `$1${JSON.stringify(ownVersion)}`);
  }
  for (const field of DEPENDENCY_FIELDS) {
    for (const [name, range] of Object.entries(before[field] ?? {})) {
      if (!released.has(name)) continue;
      const moved = movedRange(range, version);
      (expected[field] as Record<string, string>)[name] = moved;
      if (moved === range) continue;
      next = next.replace(new RegExp(`(${quoted(name)}:\\s*)${quoted(range)}`, "g"), `$1${JSON.stringify(moved)}`);
    }
  }
  if (JSON.stringify(JSON.parse(next)) !== JSON.stringify(expected)) {
    throw new Error(`could not rewrite the manifest of ${before.name} as text; edit it by hand`);
  }
  return next;
}

/** Applies rewriteManifest to a file; answers whether it changed. */
export function rewriteManifestFile(file: string, released: Set<string>, version: string, ownVersion?: string): boolean {
  const text = readFileSync(file, "utf8");
  const next = rewriteManifest(text, released, version, ownVersion);
  if (next !== text) writeFileSync(file, next);
  return next !== text;
}
