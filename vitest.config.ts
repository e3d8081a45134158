import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * Two projects (`vitest run --project unit|integration`; `npm run test:unit` / `test:integration`):
 *  - unit: `*.test.ts` beside pure code anywhere outside tests/, e2e/ and examples/ — no Postgres,
 *    no global setup, so a unit test that reaches for a database fails instead of quietly booting one;
 *  - integration: tests/**, on a real PostgreSQL with a migrated template database cloned per file
 *    (tests/helpers/global-setup.ts, tests/helpers/db.ts).
 * e2e/ is Playwright's (playwright.config.ts), never vitest's.
 */
export default defineConfig({
  resolve: {
    alias: {
      "@": here("./"),
      // The workspace packages resolve to their sources (as tsconfig.json paths do for tsc, tsx and Next).
      "@runifold/sdk/testing": here("./packages/sdk/src/testing.ts"),
      "@runifold/sdk/states": here("./packages/sdk/src/states.ts"),
      "@runifold/sdk": here("./packages/sdk/src/index.ts"),
      "@runifold/cli": here("./packages/cli/src/index.ts"),
      "@runifold/client": here("./packages/client/src/index.ts"),
      "@runifold/store/embedded": here("./packages/store/src/embedded/index.ts"),
      "@runifold/store": here("./packages/store/src/index.ts"),
      // The marker throws outside React Server Components; tests call server modules directly.
      "server-only": here("./node_modules/server-only/empty.js"),
    },
  },
  test: {
    environment: "node",
    // Two cores: files that spawn workers and servers run a few at a time, not all at once.
    maxWorkers: 2,
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["**/*.test.ts"],
          // examples/ are stand-alone projects with their own runner (node:test); tools/ holds pinned third-party suites.
          exclude: [...configDefaults.exclude, "tests/**", "e2e/**", "examples/**", "tools/**", ".next/**", ".data/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["tests/**/*.test.ts"],
          globalSetup: ["tests/helpers/global-setup.ts"],
          // Bounds on how long a failure takes, never on how fast a pass must be: CPU-bound tests
          // (scrypt sign-ins, process start-ups) take several times longer on a loaded 2-core machine.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
