import { UsageError } from "../../args";
import type { CliIo } from "../registry";

export const PASSWORD_OPTIONS = [
  { name: "password-stdin", description: "Read the password from stdin (first line), e.g. from a password manager" },
  {
    name: "password",
    value: "P",
    description:
      "The password on the command line (visible in ps and shell history: prefer --password-stdin or RUNIFOLD_PASSWORD)",
  },
];

/**
 * A password without putting it on argv (L9): `--password-stdin` (the first line of stdin), else
 * RUNIFOLD_PASSWORD, else `--password` (kept for scripts, with a warning).
 */
export async function readPassword(io: CliIo, flags: { stdin: boolean; argv: string | undefined }): Promise<string> {
  if (flags.stdin) {
    let text = "";
    for await (const chunk of io.stdin) {
      text += chunk.toString();
      if (text.includes("\n") || text.length > 1_000) break;
    }
    const line = text.split(/\r?\n/)[0] ?? "";
    if (!line) throw new UsageError("--password-stdin: stdin had no password");
    return line;
  }
  if (io.env.RUNIFOLD_PASSWORD) return io.env.RUNIFOLD_PASSWORD;
  if (flags.argv !== undefined) {
    io.stderr.write("warning: a password on the command line shows in ps and shell history; use --password-stdin\n");
    return flags.argv;
  }
  throw new UsageError("give the password with --password-stdin or RUNIFOLD_PASSWORD");
}
