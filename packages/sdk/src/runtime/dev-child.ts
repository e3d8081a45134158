import { fileURLToPath } from "node:url";

/**
 * The worker process of the dev loop (`runifold-worker --dev`): the supervisor (dev-supervisor.ts)
 * spawns it with this variable and an IPC channel, and replaces it with a new one on every change.
 * Internal: a person never sets it.
 */
export const DEV_CHILD_ENV = "RUNIFOLD_DEV_CHILD";

/** Messages from the child to the supervisor. */
export type DevChildMessage = { type: "imports"; files: string[] } | { type: "serving" };

export function isDevChild(env: Record<string, string | undefined>): boolean {
  return env[DEV_CHILD_ENV] === "1" && typeof process.send === "function";
}

export function tellSupervisor(message: DevChildMessage): void {
  process.send?.(message);
}

/**
 * The importer the dev child loads the workflows module with: TypeScript through tsx's loader, and
 * the local files the module imports (not node_modules) reported to the supervisor, which watches
 * them. A fresh process per reload means a plain import is always fresh: no cache busting, and
 * the module shares the worker's own @runifold/sdk and zod instances (instanceof holds).
 */
export async function devImporter(): Promise<(url: string) => Promise<Record<string, unknown>>> {
  const files = new Set<string>();
  // Through a variable and with the ignore comments: the web app bundles the SDK from its sources,
  // and a bundler must not trace (and try to bundle) the loader the dev loop alone needs.
  const loader = "tsx/esm/api";
  const { register } = (await import(
    /* webpackIgnore: true */ /* turbopackIgnore: true */ loader
  )) as typeof import("tsx/esm/api");
  register({
    onImport(url) {
      if (!url.startsWith("file:") || url.includes("/node_modules/")) return;
      files.add(fileURLToPath(url.replace(/[?#].*$/, "")));
    },
  });
  return async (url) => {
    try {
      return (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ url)) as Record<string, unknown>;
    } finally {
      // Also after a failed import: the files that loaded before the error are worth watching.
      tellSupervisor({ type: "imports", files: [...files] });
    }
  };
}

/**
 * The supervisor went away (killed, or its terminal closed) without a signal reaching this
 * process: drain as on SIGTERM rather than serve on unsupervised.
 */
export function drainWhenOrphaned(): void {
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
}
