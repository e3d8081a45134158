// CHANGELOG.md: one section per released version, newest first, under a fixed heading. A section's
// notes come from a file the releaser wrote (`--notes`), or else from the subjects of the commits
// since the last release tag that touched packages/ (what the published code is made of).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const HEADING =
  "# Changelog\n\nThe published packages (`@runifold/*`) share one version; each release has a section here, newest first.\n";

/** `text` (the current CHANGELOG.md, or empty) with a section for `version` inserted above the others. */
export function withSection(text: string, version: string, date: string, notes: string): string {
  const base = text.trim().length > 0 ? text : HEADING;
  if (new RegExp(`^## ${version.replace(/\./g, "\\.")}(\\s|$)`, "m").test(base)) {
    throw new Error(`CHANGELOG.md already has a section for ${version}`);
  }
  const section = `## ${version} — ${date}\n\n${notes.trim()}\n`;
  const first = base.search(/^## /m);
  if (first === -1) return `${base.trimEnd()}\n\n${section}`;
  return `${base.slice(0, first)}${section}\n${base.slice(first)}`;
}

/** The newest tag `v*` reachable from HEAD, if any. */
export function lastReleaseTag(root: string): string | undefined {
  try {
    return execFileSync("git", ["describe", "--tags", "--abbrev=0", "--match", "v[0-9]*"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined; // no release yet
  }
}

/** A bullet per commit subject since `since` (or since the beginning) that touched packages/. */
export function notesFromCommits(root: string, since: string | undefined): string {
  const range = since ? [`${since}..HEAD`] : ["HEAD"];
  const subjects = execFileSync("git", ["log", "--no-merges", "--format=%s", ...range, "--", "packages/"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return subjects.length > 0 ? subjects.map((subject) => `- ${subject}`).join("\n") : "- No changes to the packages.";
}

/** Writes the section for `version` to `<root>/CHANGELOG.md`; answers the notes used. */
export function updateChangelog(root: string, version: string, notesFile: string | undefined, date: Date): string {
  const notes = notesFile ? readFileSync(notesFile, "utf8") : notesFromCommits(root, lastReleaseTag(root));
  if (notes.trim().length === 0) throw new Error(`the notes file ${notesFile} is empty`);
  const file = path.join(root, "CHANGELOG.md");
  const current = existsSync(file) ? readFileSync(file, "utf8") : "";
  writeFileSync(file, withSection(current, version, date.toISOString().slice(0, 10), notes));
  return notes;
}
