// `tsx scripts/with-stack.ts -- <command> [args…]`: runs one command against a live stack brought up
// by scripts/lib/test-stack.ts (the helper Playwright and the conformance run use), passing BASE_URL
// and RUNIFOLD_TEST_URL (the app's origin) and DATABASE_URL (its migrated, seeded database); the
// stack is stopped afterwards and the command's exit code is this script's. Extra suites listed in
// scripts/test-suites.ts run this way inside `npm test`.
import { spawn } from "node:child_process";
import { killAllNow, track } from "./lib/children";
import { startTestStack, type TestStack } from "./lib/test-stack";

const separator = process.argv.indexOf("--");
const [command, ...args] = process.argv.slice(separator >= 0 ? separator + 1 : 2);
let stack: TestStack | undefined;

async function main(): Promise<number> {
  if (!command) {
    console.error("usage: tsx scripts/with-stack.ts -- <command> [args…]");
    return 4;
  }
  stack = await startTestStack({
    projectRoot: process.cwd(),
    label: "suite",
    workers: 1,
    log: (line) => console.log(`[stack] ${line}`),
  });
  const env = { ...stack.env, BASE_URL: stack.origin, RUNIFOLD_TEST_URL: stack.origin, DATABASE_URL: stack.databaseUrl };
  try {
    return await new Promise<number>((resolve) => {
      const child = track(spawn(command, args, { env, stdio: "inherit" }));
      child.once("error", () => resolve(127));
      child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
  } finally {
    await stack.stop();
  }
}

process.on("exit", killAllNow);
let signals = 0;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    signals += 1;
    if (signals > 1 || !stack) process.exit(130);
    void stack.stop().finally(() => process.exit(130));
  });
main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`with-stack: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
