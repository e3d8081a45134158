import { defineConfig } from "tsup";

// The package is bundled: the two storage helpers it shares with the app (db/client.ts, db/sql.ts)
// and the migration journal its schema check reads are inlined, so the tarball stands alone.
// Dependencies stay external and are installed from the registry.
export default defineConfig([
  {
    entry: { index: "src/index.ts", testing: "src/testing.ts", states: "src/states.ts" },
    format: ["esm"],
    platform: "node",
    target: "node20",
    dts: true,
    tsconfig: "tsconfig.build.json",
    clean: true,
    sourcemap: true,
    splitting: true,
    // The test harness migrates its databases with the migrations this SDK was built against.
    onSuccess: "node -e \"require('node:fs').cpSync('../../db/migrations', 'dist/migrations', { recursive: true })\"",
  },
  {
    entry: { "bin/runifold-worker": "src/bin/runifold-worker.ts" },
    format: ["esm"],
    platform: "node",
    target: "node20",
    tsconfig: "tsconfig.build.json",
    sourcemap: true,
  },
]);
