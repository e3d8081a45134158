// `npm run release -- <version|publish|pack> …`: cut a release of the publishable packages
// (every packages/* without "private": true, in lockstep). docs/releasing.md is the guide.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { provenanceAvailable, publish } from "./release/publish";
import { bumpVersions } from "./release/version";

const HELP = `Usage: npm run release -- <command> [options]

Commands:
  version <patch|minor|major|x.y.z[-pre]>   Give every publishable package (packages/*, not "private")
                                            the new version, move the ranges naming them in every
                                            manifest, refresh package-lock.json, add a CHANGELOG.md
                                            section. Commits and tags nothing.
      --notes <file>                        The section's notes (markdown); default: the subjects of
                                            the commits since the last v* tag that touched packages/.
  publish                                   Pack each publishable package (its prepack builds it) and
                                            npm publish that tarball, in dependency order. A version
                                            already on the registry is skipped.
      --registry <url>                      Publish to (and check) this registry; default: npm's.
      --tag <dist-tag>                      Default: latest, or next for a prerelease.
      --dry-run                             npm publish --dry-run: everything but the upload.
      --provenance / --no-provenance        Sigstore provenance; default: on in GitHub Actions with
                                            an id-token, off elsewhere.
      --expect-version <x.y.z>              Refuse unless the packages are at this version (CI passes
                                            the tag's).
      --out <dir>                           Keep the tarballs here (default: a temporary directory).
  pack                                      Only pack the tarballs (into --out), e.g. to install them
                                            before a version is on a registry.

Credentials come from npm's own configuration (an .npmrc auth token, or trusted publishing).
`;

const log = (line: string) => process.stdout.write(`[release] ${line}\n`);

function main(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: "boolean", short: "h" },
      notes: { type: "string" },
      registry: { type: "string" },
      tag: { type: "string" },
      "dry-run": { type: "boolean" },
      provenance: { type: "boolean" },
      "no-provenance": { type: "boolean" },
      "expect-version": { type: "string" },
      out: { type: "string" },
    },
  });
  const [command, target, ...rest] = positionals;
  if (values.help || command === undefined) {
    process.stdout.write(HELP);
    return values.help ? 0 : 2;
  }
  const root = process.cwd();
  if (command === "version") {
    if (target === undefined || rest.length > 0) throw new UsageError("version takes one argument: patch|minor|major|x.y.z");
    const result = bumpVersions({ root, target, notesFile: values.notes, date: new Date(), log });
    const files = result.changedFiles.map((file) => path.relative(root, file)).join(" ");
    log(`next: review the diff, then: git add ${files} && git commit -m "Release v${result.to}" && git tag v${result.to}`);
    log(`and push the tag (git push origin v${result.to}): .github/workflows/release.yml publishes it`);
    return 0;
  }
  if (command === "publish" || command === "pack") {
    if (positionals.length > 1) throw new UsageError(`${command} takes no arguments`);
    const out = path.resolve(values.out ?? mkdtempSync(path.join(os.tmpdir(), "runifold-release-")));
    const provenance = values["no-provenance"] ? false : (values.provenance ?? provenanceAvailable(process.env));
    const results = publish({
      root,
      out,
      registry: values.registry,
      tag: values.tag,
      dryRun: values["dry-run"] ?? false,
      provenance: command === "publish" && provenance,
      expectVersion: values["expect-version"],
      packOnly: command === "pack",
      log,
    });
    for (const result of results) log(`${result.outcome}: ${result.name}@${result.version} ${result.tarball}`);
    return 0;
  }
  throw new UsageError(`unknown command: ${command}`);
}

class UsageError extends Error {}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`release: ${(error as Error).message}\n`);
  if (error instanceof UsageError) process.stderr.write("(npm run release -- --help)\n");
  process.exitCode = error instanceof UsageError ? 2 : 1;
}
