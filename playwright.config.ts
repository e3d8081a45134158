import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests drive the real app, a real worker and Debian's Chromium.
 *
 * `npm test` (scripts/test-all.ts) starts the stack itself (embedded Postgres `e2e-pg`, migrations,
 * demo seed, `next start` on a free port, one worker) and passes its address as BASE_URL. Run alone
 * (`npm run test:e2e`) without BASE_URL, Playwright starts `npm start` on port 3100 with its state
 * under .data/e2e, after `next build` has been run.
 */
const baseURL = process.env.BASE_URL;
const standalonePort = 3100;

export default defineConfig({
  testDir: "./e2e",
  outputDir: "test-results/playwright",
  workers: 1,
  timeout: 60_000,
  reporter: [["list"], ["json", { outputFile: "test-results/playwright.json" }]],
  use: {
    baseURL: baseURL ?? `http://127.0.0.1:${standalonePort}`,
    browserName: "chromium",
    headless: true,
    screenshot: "on",
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  webServer: baseURL
    ? undefined
    : {
        command: "node --import tsx scripts/start.ts",
        url: `http://127.0.0.1:${standalonePort}/api/health`,
        env: { PORT: String(standalonePort), HOST: "127.0.0.1", RUNIFOLD_DATA_DIR: ".data/e2e", RUNIFOLD_WORKERS: "1" },
        reuseExistingServer: true,
        timeout: 180_000,
        gracefulShutdown: { signal: "SIGINT", timeout: 30_000 },
      },
});
