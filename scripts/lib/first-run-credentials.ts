import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Where a seed's one-time secrets go (DESIGN.md §1: nothing printed twice, never to a log). On a
 * terminal they are shown once; otherwise stdout is probably a log (journald, docker, CI), so they
 * go to a new 0600 file under the data root instead and only its path is printed.
 * Returns the lines to print.
 */
export function presentCredentials(secrets: string[], options: { dataRoot: string; isTTY: boolean; intro: string }): string[] {
  if (secrets.length === 0) return [];
  if (options.isTTY) return [options.intro, ...secrets.map((line) => `  ${line}`)];
  const file = path.join(options.dataRoot, `first-run-credentials-${Date.now()}.txt`);
  mkdirSync(options.dataRoot, { recursive: true, mode: 0o700 });
  // `wx`: never overwrite (or follow a link planted at) an existing file.
  writeFileSync(file, `${secrets.join("\n")}\n`, { mode: 0o600, flag: "wx" });
  return [`First run: credentials written to ${file} (mode 0600). Read it once, then delete it.`];
}

/**
 * The secret lines of a seed's result: the operator login and, for the demo, its API key — with the
 * ready-made `export` line the README's CLI steps ask for next (review F24), when the MCP endpoint is known.
 */
export function credentialLines(
  seed: { apiKey?: string; operator?: { email: string; password: string } },
  mcpUrl?: string,
  keyLabel = "demo API key",
): string[] {
  return [
    ...(seed.operator ? [`operator login: ${seed.operator.email} / ${seed.operator.password}`] : []),
    ...(seed.apiKey ? [`${`${keyLabel}:`.padEnd(16)}${seed.apiKey}`] : []),
    ...(seed.apiKey && mcpUrl ? [`for the CLI:    export RUNIFOLD_KEY=${seed.apiKey} RUNIFOLD_URL=${mcpUrl}`] : []),
  ];
}
