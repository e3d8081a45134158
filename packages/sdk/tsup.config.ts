import { chmodSync, cpSync } from "node:fs";
import { defineConfig } from "tsup";

// The package is bundled: the storage helpers it shares with the app (db/client.ts, db/sql.ts,
// db/migrate.ts) and the migration journal its schema check reads are inlined, so the tarball stands
// alone. Dependencies stay external and are installed from the registry. One build (one clean, shared
// chunks) for the three doors and the worker bin; declarations for the doors only.
export default defineConfig({
  entry: {
    index: "src/index.ts",
    testing: "src/testing.ts",
    states: "src/states.ts",
    "bin/runifold-worker": "src/bin/runifold-worker.ts",
  },
  format: ["esm"],
  platform: "node",
  target: "node20",
  dts: { entry: { index: "src/index.ts", testing: "src/testing.ts", states: "src/states.ts" } },
  tsconfig: "tsconfig.build.json",
  clean: true,
  sourcemap: true,
  splitting: true,
  async onSuccess() {
    // The test harness migrates its databases with the migrations this SDK was built against: the
    // SQL files and the journal (drizzle-kit's snapshots are a development aid, not shipped).
    cpSync("../../db/migrations", "dist/migrations", {
      recursive: true,
      filter: (source) => !/_snapshot\.json$/.test(source),
    });
    // The bin keeps its `#!/usr/bin/env node` line; npm links it, and it runs directly from dist too.
    chmodSync("dist/bin/runifold-worker.js", 0o755);
  },
});
