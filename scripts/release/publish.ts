// Publishing is npm's own: each package is packed from the workspace (`npm pack -w`, whose prepack
// builds it), and that very tarball is published (`npm publish <tarball>`), in dependency order.
// Credentials are npm's configuration too (an .npmrc token, or trusted publishing from CI): this
// script never sees a token. A version already on the registry is skipped, so a release that failed
// halfway is finished by running the same command again.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { isPrerelease } from "./versions";
import { lockstepVersion, publishOrder, readManifest, workspacePackages } from "./workspace";

export type PublishOptions = {
  root: string;
  /** Where the tarballs are written (kept afterwards). */
  out: string;
  /** The registry to publish to and ask; npm's configured one when unset. */
  registry?: string;
  /** The dist-tag; `latest`, or `next` for a prerelease, when unset. */
  tag?: string;
  /** `npm publish --dry-run`: everything but the upload. */
  dryRun: boolean;
  /** Sigstore provenance (`npm publish --provenance`); needs a CI identity (GitHub Actions with `id-token: write`). */
  provenance: boolean;
  /** Refuse unless the packages' version is this one (a tag `v1.2.3` releases 1.2.3 and nothing else). */
  expectVersion?: string;
  /** Pack only; publish nothing. */
  packOnly: boolean;
  log: (line: string) => void;
};

export type Published = { name: string; version: string; tarball: string; outcome: "published" | "skipped" | "packed" };

/** Provenance by default exactly where npm can make it: GitHub Actions with an OIDC token request URL. */
export function provenanceAvailable(env: Record<string, string | undefined>): boolean {
  return env.GITHUB_ACTIONS === "true" && Boolean(env.ACTIONS_ID_TOKEN_REQUEST_URL);
}

/** `npm pack`'s file name for a package: `@runifold/sdk@1.2.3` → `runifold-sdk-1.2.3.tgz`. */
export function tarballName(name: string, version: string): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

function npm(args: string[], root: string, options: { quiet?: boolean } = {}) {
  const result = spawnSync("npm", args, {
    cwd: root,
    encoding: "utf8",
    stdio: options.quiet ? ["ignore", "pipe", "pipe"] : ["ignore", "inherit", "inherit"],
    env: { ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" },
  });
  if (result.error) throw result.error;
  return result;
}

/** Whether `name@version` is already on the registry (`npm view`; E404 for an unknown package or version). */
function onRegistry(root: string, name: string, version: string, registry: string | undefined): boolean {
  const args = ["view", `${name}@${version}`, "version", "--json", ...(registry ? ["--registry", registry] : [])];
  const result = npm(args, root, { quiet: true });
  if (result.status === 0) return result.stdout.trim().length > 0;
  if (/E404|404 Not Found/.test(`${result.stdout}${result.stderr}`)) return false;
  throw new Error(`npm ${args.join(" ")} failed:\n${result.stdout}${result.stderr}`);
}

export function publish(options: PublishOptions): Published[] {
  const { root, log } = options;
  const packages = publishOrder(workspacePackages(root));
  if (packages.length === 0) throw new Error(`no publishable package under ${path.join(root, "packages")}`);
  const version = lockstepVersion(packages);
  if (options.expectVersion !== undefined && options.expectVersion !== version) {
    throw new Error(`the packages are at ${version}, but this release is ${options.expectVersion}`);
  }
  if (options.provenance) {
    // The registry checks a provenance statement against the package's repository field.
    const missing = packages.filter((pkg) => !(pkg.manifest as { repository?: unknown }).repository);
    if (missing.length > 0) {
      throw new Error(
        `--provenance needs a "repository" field naming the publishing GitHub repository in ${missing.map((pkg) => pkg.manifest.name).join(", ")}`,
      );
    }
  }
  const tag = options.tag ?? (isPrerelease(version) ? "next" : "latest");
  mkdirSync(options.out, { recursive: true });
  log(`${options.packOnly ? "packing" : "releasing"} ${version} (${packages.map((pkg) => pkg.manifest.name).join(", ")})`);

  const results: Published[] = [];
  for (const pkg of packages) {
    const { name } = pkg.manifest;
    if (!options.packOnly && !options.dryRun && onRegistry(root, name, version, options.registry)) {
      log(`${name}@${version} is already on the registry: skipped`);
      results.push({ name, version, tarball: "", outcome: "skipped" });
      continue;
    }
    log(`npm pack ${name}`);
    const packed = npm(["pack", "-w", name, "--pack-destination", options.out, "--loglevel", "warn"], root);
    const tarball = path.join(options.out, tarballName(name, version));
    if (packed.status !== 0 || !existsSync(tarball)) throw new Error(`npm pack -w ${name} made no ${tarball}`);
    // What was packed is what the manifest says (a build that rewrote the version would be caught here).
    if (readManifest(pkg.manifestPath).version !== version) throw new Error(`${name} changed version while packing`);
    if (options.packOnly) {
      results.push({ name, version, tarball, outcome: "packed" });
      continue;
    }
    const args = ["publish", tarball, "--access", "public", "--tag", tag];
    if (options.registry) args.push("--registry", options.registry);
    if (options.provenance) args.push("--provenance");
    if (options.dryRun) args.push("--dry-run");
    log(`npm ${args.join(" ")}`);
    const published = npm(args, root);
    if (published.status !== 0) throw new Error(`npm publish of ${name}@${version} failed (exit ${published.status})`);
    results.push({ name, version, tarball, outcome: "published" });
  }
  return results;
}
