import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { AnyWorkflow } from "../workflow";
import { workflowKey } from "../workflow";

/** A workflows module could not be used; the message says what to fix. */
export class WorkflowsModuleError extends Error {
  override name = "WorkflowsModuleError";
}

const NAME = /^[a-z0-9][a-z0-9._-]*$/;

function looksLikeDefinition(value: unknown): value is AnyWorkflow {
  if (value === null || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.name === "string" && "version" in v && typeof v.run === "function" && typeof v.input === "object";
}

/**
 * The definitions a module exports: its default export (an array of definitions, or one) plus every
 * named export that is a definition. The same definition exported twice (default array and by name)
 * counts once; two different ones under one `name@version` are an error.
 */
export function definitionsOf(moduleExports: Record<string, unknown>, source: string): AnyWorkflow[] {
  const candidates: unknown[] = [];
  const fallback = moduleExports.default;
  if (Array.isArray(fallback)) {
    // The default array is declared to hold definitions only: an entry that is not one (undefined from
    // a circular import, a registry, a forgotten call) would otherwise vanish silently, and its runs
    // would wait forever for a worker that serves them.
    fallback.forEach((entry, index) => {
      if (!looksLikeDefinition(entry)) {
        throw new WorkflowsModuleError(
          `${source}: default export entry ${index} is not a workflow definition (got ${kindOf(entry)})`,
        );
      }
    });
    candidates.push(...fallback);
  } else if (fallback !== undefined) candidates.push(fallback);
  for (const [name, value] of Object.entries(moduleExports)) if (name !== "default") candidates.push(value);
  const found = new Map<string, AnyWorkflow>();
  for (const candidate of candidates) {
    if (!looksLikeDefinition(candidate)) continue;
    if (!NAME.test(candidate.name)) {
      throw new WorkflowsModuleError(`${source}: invalid workflow name "${candidate.name}" (lower-case letters, digits, . _ -)`);
    }
    if (!Number.isInteger(candidate.version) || candidate.version < 1) {
      // A string version is quoted: "has version 1" for "1" would read as if 1 were refused.
      const shown = typeof candidate.version === "string" ? JSON.stringify(candidate.version) : String(candidate.version);
      throw new WorkflowsModuleError(`${source}: ${candidate.name} has version ${shown}; use an integer ≥ 1`);
    }
    const key = workflowKey(candidate.name, candidate.version);
    const seen = found.get(key);
    if (seen && seen !== candidate) throw new WorkflowsModuleError(`${source}: two different definitions of ${key}`);
    found.set(key, candidate);
  }
  if (found.size === 0) {
    throw new WorkflowsModuleError(
      `${source} exports no workflow definitions: export default [defineWorkflow({...}), ...] (named exports of definitions also count)`,
    );
  }
  return [...found.values()];
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object without name, version, input and run" : typeof value;
}

/**
 * Imports a workflows module by path (relative to `cwd`) and returns its definitions. `importer`
 * replaces the plain import (the dev loop's, which loads TypeScript itself: dev-child.ts).
 */
export async function loadWorkflowsModule(
  modulePath: string,
  cwd = process.cwd(),
  importer?: (url: string) => Promise<Record<string, unknown>>,
): Promise<AnyWorkflow[]> {
  const file = path.resolve(cwd, modulePath);
  // The path is the caller's, known only at run time: bundlers must not trace it (Turbopack would
  // otherwise include the whole project in the web app's server output).
  if (!existsSync(/* turbopackIgnore: true */ file)) throw new WorkflowsModuleError(`workflows module not found: ${file}`);
  if (
    !importer &&
    /\.[cm]?tsx?$/.test(file) &&
    !process.execArgv.some((arg) => arg.includes("tsx")) &&
    !process.env.TSX_TSCONFIG_PATH
  ) {
    // Node 20 cannot load TypeScript itself; say how instead of failing with a syntax error.
    throw new WorkflowsModuleError(
      `${file} is TypeScript: build it to .js/.mjs, run with a loader (node --import tsx …), or serve it in the dev loop (--dev)`,
    );
  }
  let exports: Record<string, unknown>;
  try {
    const url = pathToFileURL(file).href;
    exports = importer
      ? await importer(url)
      : ((await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ url)) as Record<string, unknown>);
  } catch (error) {
    throw new WorkflowsModuleError(`could not load ${file}: ${(error as Error).message}`);
  }
  return definitionsOf(exports, modulePath);
}
