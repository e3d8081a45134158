import { chmodSync, cpSync } from "node:fs";
import { defineConfig } from "tsup";

// The package is bundled: @runifold/store, the storage kernel it shares with the app (a private
// workspace package, docs/architecture.md), is inlined with its migration journal, so the tarball
// stands alone. Every other dependency stays external and is installed from the registry. One build
// (one clean, shared chunks) for the three doors and the worker bin; declarations for the doors only,
// with the store's types inlined too (nothing in the .d.ts names a package the registry lacks).
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
  noExternal: ["@runifold/store"],
  dts: {
    entry: { index: "src/index.ts", testing: "src/testing.ts", states: "src/states.ts" },
    resolve: ["@runifold/store"],
  },
  tsconfig: "tsconfig.build.json",
  clean: true,
  sourcemap: true,
  splitting: true,
  async onSuccess() {
    // The test harness migrates its databases with the migrations this SDK was built against: the
    // SQL files and the journal (drizzle-kit's snapshots are a development aid, not shipped).
    cpSync("../store/migrations", "dist/migrations", {
      recursive: true,
      filter: (source) => !/_snapshot\.json$/.test(source),
    });
    // The bin keeps its `#!/usr/bin/env node` line; npm links it, and it runs directly from dist too.
    chmodSync("dist/bin/runifold-worker.js", 0o755);
  },
});
