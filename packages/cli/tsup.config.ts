import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", runifold: "src/main.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  dts: { entry: { index: "src/index.ts" } },
  tsconfig: "tsconfig.build.json",
  clean: true,
  sourcemap: true,
});
