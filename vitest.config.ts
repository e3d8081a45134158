import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL("./", import.meta.url)),
      // The workspace packages resolve to their sources (as tsconfig.json paths do for tsc, tsx and Next).
      "@runifold/sdk/testing": fileURLToPath(new URL("./packages/sdk/src/testing.ts", import.meta.url)),
      "@runifold/sdk/states": fileURLToPath(new URL("./packages/sdk/src/states.ts", import.meta.url)),
      "@runifold/sdk": fileURLToPath(new URL("./packages/sdk/src/index.ts", import.meta.url)),
      "@runifold/client": fileURLToPath(new URL("./packages/client/src/index.ts", import.meta.url)),
      // The marker throws outside React Server Components; tests call server modules directly.
      "server-only": fileURLToPath(new URL("./node_modules/server-only/empty.js", import.meta.url)),
    },
  },
  test: {
    include: ["lib/**/*.test.ts", "tests/**/*.test.ts", "workers/**/*.test.ts"],
    environment: "node",
    globalSetup: ["tests/helpers/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: files that spawn workers and servers run a few at a time, not all at once.
    maxWorkers: 2,
    reporters: ["default", "json"],
    outputFile: { json: "test-results/vitest.json" },
  },
});
