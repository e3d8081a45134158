import { killAllNow } from "../scripts/lib/children";
import { startTestStack } from "../scripts/lib/test-stack";
import { createLoopbackTls } from "./oauth/loopback-tls";

/**
 * `npm run test:e2e` brings up its own stack through the helper every suite uses
 * (scripts/lib/test-stack.ts: fresh database, migrations, demo seed, `next start`, one worker) and
 * hands it to the tests as BASE_URL and DATABASE_URL; worker processes inherit both. With BASE_URL
 * already set, the tests run against that stack instead (DATABASE_URL must name its database).
 * The returned function is Playwright's global teardown: it stops what was started here.
 */
export default async function globalSetup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.BASE_URL) {
    if (!process.env.DATABASE_URL) throw new Error("BASE_URL is set without DATABASE_URL (the stack's database)");
    return undefined;
  }
  process.on("exit", killAllNow); // a runner that dies never leaves a web server or worker behind
  // e2e/oauth.spec.ts serves a client metadata document over https on loopback; the app trusts its certificate.
  const tls = createLoopbackTls(process.cwd());
  process.env.E2E_LOOPBACK_TLS_KEY = tls.keyFile;
  process.env.E2E_LOOPBACK_TLS_CERT = tls.certFile;
  const stack = await startTestStack({
    projectRoot: process.cwd(),
    label: "e2e",
    workers: 1,
    // e2e/webhooks.spec.ts receives webhooks on loopback (docs/webhooks.md, SSRF).
    // e2e/oauth.spec.ts's CIMD client is on loopback too, which the server fetches only when asked.
    env: { NODE_EXTRA_CA_CERTS: tls.certFile, RUNIFOLD_WEBHOOK_ALLOW_PRIVATE: "true", RUNIFOLD_OAUTH_LOOPBACK_CIMD: "true" },
    log: (line) => process.stdout.write(`[e2e stack] ${line}\n`),
  });
  process.env.BASE_URL = stack.origin;
  process.env.DATABASE_URL = stack.databaseUrl;
  process.stdout.write(`[e2e stack] ${stack.origin} is up\n`);
  return () => stack.stop();
}
