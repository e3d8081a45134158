import { spawnTs } from "../helpers/processes";

export type CliRun = { code: number | null; stdout: string; stderr: string; lines: string[] };

/** Runs the CLI as a real process (`node --import tsx cli/main.ts …`) and collects its output. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<CliRun> {
  const child = spawnTs("cli/main.ts", { RUNIFOLD_URL: "", RUNIFOLD_KEY: "", RUNIFOLD_DEBUG: "", ...env }, args);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`runifold ${args.join(" ")} did not exit in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, lines: stdout.split("\n").filter((line) => line.length > 0) });
    });
  });
}

/** The last JSON document on stdout. */
// biome-ignore lint/suspicious/noExplicitAny: tests inspect the CLI's JSON output freely
export function lastJson(run: CliRun): any {
  const line = run.lines.at(-1);
  if (!line) throw new Error(`no output (exit ${run.code}): ${run.stderr}`);
  return JSON.parse(line);
}
