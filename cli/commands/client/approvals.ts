import { readFile } from "node:fs/promises";
import { type OpenApproval, verifyReceipt } from "@runifold/sdk";
import { rotateApprovalKey } from "../../../lib/admin";
import { TOKEN_OPTION, tokenOf } from "../../admin-http";
import { CliError, option, type Parsed, parseJsonOption, positionals, UsageError } from "../../args";
import { CLIENT_OPTIONS, clientKey, DEFAULT_URL } from "../../connect";
import { withAdmin } from "../../db";
import { EXIT } from "../../exit-codes";
import { print, printJson, printTable } from "../../output";
import { type CliIo, registerCommand } from "../registry";

/**
 * `approvals list|decide|verify` (docs/approvals.md): the first two over HTTP on the server behind the
 * MCP URL (same origin), as the person behind the credential; `verify` checks a receipt offline
 * against a JWKS file or URL and exits 0 only for a valid receipt.
 */
const HTTP_OPTIONS = [
  ...CLIENT_OPTIONS.filter((spec) => spec.name !== "era").map((spec) =>
    spec.name === "url" ? { ...spec, description: `${spec.description}; approvals go to its origin` } : spec,
  ),
  {
    ...TOKEN_OPTION,
    description: "An operator API token rfo_… with approvals:decide (default $RUNIFOLD_TOKEN); wins over --key",
  },
];

/** The credential: an operator API token (every tenant its operator sees) before a tenant's API key or OAuth token. */
function credentialOf(parsed: Parsed, io: CliIo): string | undefined {
  return tokenOf(parsed, io) ?? clientKey(parsed, io);
}

function originOf(parsed: Parsed, io: CliIo): string {
  const mcpUrl = option(parsed, "url") ?? (io.env.RUNIFOLD_URL || DEFAULT_URL);
  try {
    return new URL(mcpUrl).origin;
  } catch {
    throw new UsageError(`Invalid --url "${mcpUrl}"`);
  }
}

async function call(url: URL, init: RequestInit, io: CliIo): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: io.signal });
  } catch (error) {
    if (io.signal.aborted) throw error;
    const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new CliError(`Cannot reach ${url.origin}: ${cause}`);
  }
}

async function refusal(response: Response): Promise<CliError> {
  const body = (await response.json().catch(() => ({}))) as { message?: unknown };
  const message = typeof body.message === "string" ? body.message : "Unexpected answer";
  const hint = response.status === 401 ? " (pass --token or --key, or set RUNIFOLD_TOKEN or RUNIFOLD_KEY)" : "";
  return new CliError(response.status === 404 ? message : `${message} (HTTP ${response.status})${hint}`);
}

/** The receipts in a file: one compact JWS, or JSON — a string, a list, or a tool result with `_meta["io.runifold/approvals"]`. */
function receiptsIn(text: string): string[] {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[") && !trimmed.startsWith('"')) return [trimmed];
  const value = parseJsonOption(trimmed, "the receipt file") as unknown;
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string");
  const meta = (value as { _meta?: Record<string, unknown>; result?: { _meta?: Record<string, unknown> } })._meta;
  const listed = (meta ?? (value as { result?: { _meta?: Record<string, unknown> } }).result?._meta)?.["io.runifold/approvals"];
  return Array.isArray(listed) ? listed.filter((item): item is string => typeof item === "string") : [];
}

async function readJwks(source: string, io: CliIo): Promise<{ keys: [] }> {
  if (/^https?:\/\//.test(source)) {
    const response = await call(new URL(source), {}, io);
    if (!response.ok) throw new CliError(`Cannot read the JWKS at ${source} (HTTP ${response.status})`);
    return (await response.json()) as { keys: [] };
  }
  const text = await readFile(source, "utf8").catch(() => {
    throw new CliError(`Cannot read the JWKS file ${source}`);
  });
  const jwks = parseJsonOption(text, `--jwks ${source}`) as { keys?: unknown };
  if (typeof jwks !== "object" || jwks === null || !Array.isArray(jwks.keys))
    throw new CliError(`${source} is not a JWKS ({ "keys": [...] })`);
  return jwks as { keys: [] };
}

registerCommand({
  name: "approvals",
  summary: "Approvals: list what you may decide, approve or reject, verify a receipt",
  section: "client",
  verbs: [
    {
      name: "list",
      args: "",
      summary: "The open approvals the person behind the credential may decide (--all: every open one of the tenant)",
      options: [
        { name: "all", description: "Every open approval of the tenant, also those you may not decide" },
        ...HTTP_OPTIONS,
      ],
      async run(parsed, io) {
        positionals(parsed, []);
        const url = new URL(`/api/v1/approvals${parsed.flags.has("all") ? "?all=true" : ""}`, originOf(parsed, io));
        const key = credentialOf(parsed, io);
        const response = await call(url, { headers: key ? { authorization: `Bearer ${key}` } : {} }, io);
        if (response.status !== 200) throw await refusal(response);
        const { approvals } = (await response.json()) as { approvals: OpenApproval[] };
        if (parsed.flags.has("json")) printJson(io, { approvals });
        else
          printTable(
            io,
            ["TASK", "KEY", "APPROVED", "APPROVERS", "EXPIRES", "YOU", "MESSAGE"],
            approvals.map((a) => [
              a.taskId,
              a.key,
              `${a.decisions.filter((d) => d.decision === "approve").length}/${a.quorum}`,
              a.approvers,
              a.expiresAt ?? "-",
              a.canDecide ? "may decide" : "-",
              a.message,
            ]),
          );
        return EXIT.completed;
      },
    },
    {
      name: "decide",
      args: "<taskId> <key> <approve|reject>",
      summary: "Approve or reject an approval as the person behind the credential (recorded with channel cli)",
      options: [
        { name: "comment", value: "TEXT", description: "A comment kept with the decision and in the receipt" },
        { name: "fields", value: "JSON", description: "Values of the approval's extra fields (its requestedSchema)" },
        ...HTTP_OPTIONS,
      ],
      notes: ['Example: runifold approvals decide <taskId> ship approve --comment "checked the diff"'],
      async run(parsed, io) {
        const [taskId, key, decision] = positionals(parsed, ["taskId", "key", "decision"]) as [string, string, string];
        if (decision !== "approve" && decision !== "reject") throw new UsageError("The decision is approve or reject");
        const rawFields = option(parsed, "fields");
        const fields = rawFields === undefined ? undefined : parseJsonOption(rawFields, "--fields");
        const url = new URL(
          `/api/v1/approvals/${encodeURIComponent(taskId)}/${encodeURIComponent(key)}/decisions`,
          originOf(parsed, io),
        );
        const token = credentialOf(parsed, io);
        const response = await call(
          url,
          {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-runifold-channel": "cli",
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
            body: JSON.stringify({ decision, comment: option(parsed, "comment"), fields }),
          },
          io,
        );
        if (response.status !== 201) throw await refusal(response);
        const body = (await response.json()) as { outcome: string | null; decisions: unknown[] };
        if (parsed.flags.has("json")) printJson(io, body);
        else print(io.stdout, `Recorded: ${decision} (${body.decisions.length} decision(s); ${body.outcome ?? "still open"})`);
        return EXIT.completed;
      },
    },
    {
      name: "verify",
      args: "<file>",
      summary: "Verify an approval receipt (a JWS, or a tool result carrying receipts); exits 0 only when every one is valid",
      options: [
        {
          name: "jwks",
          value: "URL|FILE",
          description: "The public keys (default: <origin>/.well-known/runifold/approvals-jwks.json)",
        },
        {
          name: "url",
          value: "URL",
          description: `MCP endpoint whose origin publishes the JWKS (default: $RUNIFOLD_URL, else ${DEFAULT_URL})`,
        },
        { name: "json", description: "Machine-readable output (one JSON document)" },
      ],
      async run(parsed, io) {
        const [file] = positionals(parsed, ["file"]) as [string];
        const text = await readFile(file, "utf8").catch(() => {
          throw new CliError(`Cannot read ${file}`);
        });
        const receipts = receiptsIn(text);
        if (receipts.length === 0) throw new CliError(`No approval receipt in ${file}`);
        const jwks = await readJwks(
          option(parsed, "jwks") ?? `${originOf(parsed, io)}/.well-known/runifold/approvals-jwks.json`,
          io,
        );
        const results = await Promise.all(receipts.map((receipt) => verifyReceipt(receipt, jwks)));
        if (parsed.flags.has("json")) printJson(io, { valid: results.every((r) => r.valid), receipts: results });
        else
          for (const result of results)
            print(
              result.valid ? io.stdout : io.stderr,
              result.valid
                ? `valid: ${result.payload.outcome} (${result.payload.key}) of task ${result.payload.sub}, tenant ${result.payload.tenant}, ${result.payload.decisions.length} decision(s), key ${result.kid}`
                : `INVALID: ${result.reason}`,
            );
        return results.every((r) => r.valid) ? EXIT.completed : EXIT.error;
      },
    },
    {
      name: "rotate-key",
      args: "",
      summary: "Add a new receipt signing key (it signs from now on; older keys stay published) — uses the database (audited)",
      options: [{ name: "json", description: "Machine-readable output (one JSON document)" }],
      async run(parsed, io) {
        positionals(parsed, []);
        const kid = await withAdmin(io, (ctx) => rotateApprovalKey(ctx, io.env));
        if (parsed.flags.has("json")) printJson(io, { kid });
        else print(io.stdout, `New approval signing key ${kid}`);
        return EXIT.completed;
      },
    },
  ],
});
