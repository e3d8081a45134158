import { terminalSafe } from "./output";
import { runCli } from "./run";

/**
 * `runifold` entry point (npm run cli, scripts/runifold.mjs). The first SIGINT/SIGTERM aborts a wait
 * (the task keeps running; the command reports how to resume); a second one exits at once.
 */
const controller = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  if (controller.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 143);
  controller.abort();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const code = await runCli(process.argv.slice(2), {
  // Server-provided text is printed with control characters and bidi overrides made visible (output.ts).
  stdout: terminalSafe(process.stdout),
  stderr: terminalSafe(process.stderr),
  stdin: process.stdin,
  env: process.env,
  signal: controller.signal,
});
process.exitCode = code;
// Idle keep-alive sockets or a paused stdin must not hold the process open once the command is done.
setTimeout(() => process.exit(code), 100).unref();
