import { McpTaskClient } from "@runifold/client";
import { type OptionSpec, option, type Parsed, UsageError } from "./args";
import type { CliIo } from "./commands/registry";

export const DEFAULT_URL = "http://127.0.0.1:3000/api/mcp";

export const JSON_OPTION: OptionSpec = { name: "json", description: "Machine-readable output (JSON)" };

/** Options every MCP client verb takes. */
export const CLIENT_OPTIONS: OptionSpec[] = [
  { name: "url", value: "URL", description: `MCP endpoint (default: $RUNIFOLD_URL, else ${DEFAULT_URL})` },
  { name: "key", value: "KEY", description: "API key (default: $RUNIFOLD_KEY)" },
  { name: "era", value: "auto|modern|legacy", description: "Protocol era (default auto: 2026-07-28, else 2025-11-25)" },
  JSON_OPTION,
];

export function clientKey(parsed: Parsed, io: CliIo): string | undefined {
  return option(parsed, "key") ?? (io.env.RUNIFOLD_KEY || undefined);
}

export async function connectClient(parsed: Parsed, io: CliIo): Promise<McpTaskClient> {
  const url = option(parsed, "url") ?? (io.env.RUNIFOLD_URL || DEFAULT_URL);
  try {
    new URL(url);
  } catch {
    throw new UsageError(`Invalid --url "${url}"`);
  }
  const era = option(parsed, "era") ?? "auto";
  if (era !== "auto" && era !== "modern" && era !== "legacy") throw new UsageError("--era must be auto, modern or legacy");
  return McpTaskClient.connect(url, {
    key: clientKey(parsed, io),
    era,
    clientInfo: { name: "runifold-cli", version: "0.1.0" },
    signal: io.signal,
  });
}
