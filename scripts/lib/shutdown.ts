import { killAllNow } from "./children";

/** Signals this close to the first are the same keypress relayed by a parent (npm, npx, tsx). */
const SAME_SIGNAL_MS = 1_000;

/**
 * The signal handling of a supervisor that owns child processes (`npm start`, `runifold-server dev`):
 * SIGINT, SIGTERM and SIGHUP stop everything in order once (`graceful`, then exit with the code); a
 * second signal runs `fast` and exits 130; a crash kills every child and runs `fast`. One Ctrl-C
 * often arrives more than once — the terminal signals the whole foreground group, and npm, npx and
 * tsx forward it to their child too — so repeats within a second of the first count as that one. The supervisor
 * reads `signals()` between its start-up steps to stop starting things once asked to stop.
 */
export function handleShutdown(options: {
  log: (line: string) => void;
  /** Children drained, then the database stopped (checkpointed), then state files removed. */
  graceful: () => Promise<void>;
  /** Children already SIGKILLed: the database stopped without a checkpoint, state files removed. */
  fast: () => Promise<void>;
}): { shutdown: (code: number) => Promise<void>; signals: () => number } {
  let signals = 0;
  let firstAt = 0;
  let shuttingDown: Promise<void> | undefined;

  const shutdown = (code: number): Promise<void> => {
    shuttingDown ??= (async () => {
      options.log("stopping…");
      await options.graceful();
      options.log("stopped");
      process.exit(code);
    })();
    return shuttingDown;
  };

  const killFast = async () => {
    options.log("second signal: killing everything now");
    killAllNow();
    await options.fast();
    process.exit(130);
  };

  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(sig, () => {
      if (signals > 0 && Date.now() - firstAt < SAME_SIGNAL_MS) return;
      signals += 1;
      if (signals === 1) {
        firstAt = Date.now();
        void shutdown(0);
      } else void killFast();
    });
  }
  process.on("uncaughtException", (error) => {
    process.stderr.write(`fatal: ${error.stack ?? error.message}\n`);
    killAllNow();
    void options.fast().finally(() => process.exit(1));
  });
  process.on("exit", () => killAllNow()); // last resort: never leave a child behind
  return { shutdown, signals: () => signals };
}
