import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests drive the real app, a real worker and Debian's Chromium.
 *
 * `npm run test:e2e` (also what `npm test` runs) needs a production build (`next build`). Its global
 * setup (e2e/global-setup.ts) brings up the stack with scripts/lib/test-stack.ts — the same helper
 * the conformance run uses — and sets BASE_URL and DATABASE_URL, which the worker processes
 * inherit and read when they load this file. With BASE_URL (and DATABASE_URL) set beforehand, the
 * tests run against that stack instead.
 */
export default defineConfig({
  testDir: "./e2e",
  outputDir: "test-results/playwright",
  globalSetup: "./e2e/global-setup.ts",
  workers: 1,
  timeout: 60_000,
  // Assertions wait for a state; the bound only limits how long a failure takes on a loaded machine.
  expect: { timeout: 15_000 },
  reporter: [["list"], ["json", { outputFile: "test-results/playwright.json" }]],
  use: {
    baseURL: process.env.BASE_URL,
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
});
