import { CliError, option, type Parsed, parseJsonOption, positionals, UsageError } from "../../args";
import { CLIENT_OPTIONS, clientKey, DEFAULT_URL } from "../../connect";
import { EXIT } from "../../exit-codes";
import { print, printJson } from "../../output";
import type { CliIo, Verb } from "../registry";

/**
 * `tasks signal <id> <name> [--payload JSON]`: POST /api/v1/tasks/{id}/signals/{name} on the server
 * behind the MCP URL (same origin). Plain HTTP rather than MCP: signals are this server's extension,
 * not part of the protocol. Every refusal (auth, not found, terminal, bad name, too large) exits 4.
 */
export const signalVerb: Verb = {
  name: "signal",
  args: "<id> <name>",
  summary: "Send a signal to a task (what its workflow's ctx.waitForSignal(name) receives)",
  options: [
    { name: "payload", value: "JSON", description: "The signal's payload (default: none, received as null)" },
    // Plain HTTP on the MCP endpoint's origin: no protocol era to pick.
    ...CLIENT_OPTIONS.filter((spec) => spec.name !== "era").map((spec) =>
      spec.name === "url" ? { ...spec, description: `${spec.description}; the signal goes to its origin` } : spec,
    ),
  ],
  notes: [`Example: runifold tasks signal <id> approved --payload '{"by":"ops"}'`],
  async run(parsed, io) {
    const [id, name] = positionals(parsed, ["id", "name"]) as [string, string];
    const raw = option(parsed, "payload");
    if (raw !== undefined) parseJsonOption(raw, "--payload");
    const response = await postSignal(signalUrl(parsed, io, id, name), clientKey(parsed, io), raw, io.signal);
    const body = (await response.json().catch(() => ({}))) as { message?: unknown };
    if (response.status !== 202) throw refusal(response.status, body);
    if (parsed.flags.has("json")) printJson(io, body);
    else print(io.stdout, `Signal ${name} sent to task ${id}`);
    return EXIT.completed;
  },
};

/** The endpoint on the MCP URL's origin (`--url`, else $RUNIFOLD_URL, else the default). */
function signalUrl(parsed: Parsed, io: CliIo, id: string, name: string): URL {
  const mcpUrl = option(parsed, "url") ?? (io.env.RUNIFOLD_URL || DEFAULT_URL);
  let origin: string;
  try {
    origin = new URL(mcpUrl).origin;
  } catch {
    throw new UsageError(`Invalid --url "${mcpUrl}"`);
  }
  return new URL(`/api/v1/tasks/${encodeURIComponent(id)}/signals/${encodeURIComponent(name)}`, origin);
}

async function postSignal(
  url: URL,
  key: string | undefined,
  payload: string | undefined,
  signal: AbortSignal,
): Promise<Response> {
  try {
    return await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: payload ?? "",
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new CliError(`Cannot reach ${url.origin}: ${cause}`);
  }
}

function refusal(status: number, body: { message?: unknown }): CliError {
  const message = typeof body.message === "string" ? body.message : "Unexpected answer";
  const hint = status === 401 ? " (pass --key or set RUNIFOLD_KEY)" : "";
  // Not found says only that, as `tasks get` does; the rest name the HTTP status like auth errors.
  return new CliError(status === 404 ? message : `${message} (HTTP ${status})${hint}`);
}
