import { existsSync } from "node:fs";
import path from "node:path";
import { killAllNow } from "../../scripts/lib/children";
import { startTestStack, type TestStack } from "../../scripts/lib/test-stack";
import { ROOT } from "./processes";

let killOnExit = false;

/**
 * `next start` of the production build on a fresh database, no workers (scripts/lib/test-stack.ts),
 * for what only Next itself serves (next-auth's sign-in, headers decided at run time). Without a
 * build it throws at once, not in the promise, so a suite that starts the stack in the background
 * still fails in its setup; a test process that dies never leaves `next start` behind.
 */
export function startBuiltStack(label: string, env?: Record<string, string>): Promise<TestStack> {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID")))
    throw new Error("needs a production build: run `npm run build` first (tests/start does the same)");
  if (!killOnExit) process.on("exit", killAllNow);
  killOnExit = true;
  return startTestStack({
    projectRoot: ROOT,
    label,
    workers: 0,
    env,
    log: (line) => process.stderr.write(`[${label} stack] ${line}\n`),
  });
}

/** What a sign-in form posts besides the credentials: next-auth's CSRF token, and its cookie. */
export async function csrfSession(origin: string): Promise<{ csrfToken: string; cookie: string }> {
  const csrf = await fetch(`${origin}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = csrf.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  return { csrfToken, cookie };
}
