/**
 * Runs `round` so that rounds never overlap (messages go out in store order) and a wake-up that
 * arrives during a round runs exactly one more after it. A failing round is reported to `onError`
 * and the stream waits for its next wake-up. Shared by the tasks/result and standalone streams.
 */
export function serialRounds(round: () => Promise<void>, onError: (error: Error) => void): () => Promise<void> {
  let running = false;
  let again = false;
  return async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await round();
      } while (again);
    } catch (error) {
      onError(error as Error);
    } finally {
      running = false;
    }
  };
}
