// Next.js calls register() once when a server process starts (not during `next build`).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startWebRetention } = await import("./lib/server/retention");
  startWebRetention();
}
