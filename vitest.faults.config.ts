import { defineConfig } from "vitest/config";
import base from "./vitest.config";

// `npm run test:faults`: the fault suite at full size (RUNIFOLD_FAULTS=full). The quick size of the
// same files runs inside `npm test` through vitest.config.ts (the integration project's tests/** include).
// Aliases come from the default config so both stay in step.
export default defineConfig({
  resolve: base.resolve,
  test: {
    include: ["tests/faults/**/*.test.ts"],
    environment: "node",
    env: { RUNIFOLD_FAULTS: process.env.RUNIFOLD_FAULTS ?? "full" },
    globalSetup: ["tests/helpers/global-setup.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    maxWorkers: 1,
    reporters: ["default"],
  },
});
