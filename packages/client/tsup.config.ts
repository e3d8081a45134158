import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  dts: true,
  tsconfig: "tsconfig.build.json",
  clean: true,
  sourcemap: true,
});
