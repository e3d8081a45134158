import { AsyncLocalStorage } from "node:async_hooks";
import { coerceError, StoreUnavailable, UnhandledWorkflowError } from "./errors";
import type { Logger } from "./logger";

/** The attempt whose workflow code is running: the async context that errors are traced back to. */
type AttemptScope = { runId: string; fail(error: UnhandledWorkflowError | StoreUnavailable): void };

const scopes = new AsyncLocalStorage<AttemptScope>();

/** Runs workflow code so that an error it leaks to the process can be traced back to its attempt. */
export function runInAttemptScope<T>(scope: AttemptScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

let installed: { count: number; remove(): void } | undefined;

/** A frame of the PostgreSQL driver's own files (postgres.js, ESM or CJS build). */
const DRIVER_FRAME = /[\\/]node_modules[\\/]postgres[\\/]/;

/**
 * True when the error was thrown by the store driver itself, not by workflow code: its innermost
 * frame is postgres.js's. postgres.js 3.4.9 can throw from a timer it scheduled on a connection that
 * was killed meanwhile (`nextWrite` writing to a socket already set to null: "Cannot read properties
 * of null (reading 'write')", seen in the primary-failover test); the timer runs in the async context
 * of the query that scheduled it, so without this check the attempt that sent the query would be
 * blamed and its run failed for a connection loss.
 */
export function isDriverFault(error: Error): boolean {
  const innermost = error.stack?.split("\n").find((line) => line.trimStart().startsWith("at "));
  return innermost !== undefined && DRIVER_FRAME.test(innermost);
}

/**
 * The worker's last-resort handlers: an unhandled rejection or uncaught exception raised by workflow
 * code (a promise it never awaited, a timer callback that throws) fails that code's attempt — the
 * run ends `failed` with cause `unhandled_error` — instead of exiting the process and every other
 * run in it (docs/architecture.md, "Replay"). An unhandled rejection from anywhere else is logged and the
 * worker keeps serving; an uncaught exception from anywhere else keeps Node's default (exit), unless
 * the embedding program installed its own handler. An error the store driver throws by itself
 * (isDriverFault) is neither: a store outage. Installed once per process, by reference count.
 */
export function installLastResortHandlers(logger: Logger): () => void {
  if (!installed) {
    const onRejection = (reason: unknown) => {
      const scope = scopes.getStore();
      const error = coerceError(reason);
      if (isDriverFault(error)) return onDriverFault(scope, error);
      if (scope) {
        logger.error("unhandled rejection in workflow code; failing its attempt", { runId: scope.runId, error: error.message });
        scope.fail(new UnhandledWorkflowError(`unhandled rejection in workflow code: ${error.message}`));
      } else logger.error("unhandled rejection outside any run (the worker keeps running)", { error: error.message });
    };
    const onException = (thrown: unknown) => {
      const scope = scopes.getStore();
      const error = coerceError(thrown);
      if (isDriverFault(error)) return onDriverFault(scope, error);
      if (scope) {
        logger.error("uncaught exception in workflow code; failing its attempt", { runId: scope.runId, error: error.message });
        scope.fail(new UnhandledWorkflowError(`uncaught exception in workflow code: ${error.message}`));
        return;
      }
      logger.error("uncaught exception", { error: error.message, stack: error.stack });
      if (process.listenerCount("uncaughtException") === 1) process.exit(1);
    };
    // The driver's fault is a store outage: the attempt ends without counting against its run (the
    // worker hands the run back once the store answers), and the worker keeps serving, since the
    // driver replaces the dead connection by itself.
    const onDriverFault = (scope: AttemptScope | undefined, error: Error) => {
      logger.warn("the store driver threw on a lost connection; treated as a store outage", {
        ...(scope ? { runId: scope.runId } : {}),
        error: error.message,
      });
      scope?.fail(new StoreUnavailable(`the store driver failed: ${error.message}`));
    };
    process.on("unhandledRejection", onRejection);
    process.on("uncaughtException", onException);
    installed = {
      count: 0,
      remove() {
        process.off("unhandledRejection", onRejection);
        process.off("uncaughtException", onException);
      },
    };
  }
  const handlers = installed;
  handlers.count += 1;
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    handlers.count -= 1;
    if (handlers.count === 0) {
      handlers.remove();
      if (installed === handlers) installed = undefined;
    }
  };
}
