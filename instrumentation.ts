// Next.js calls register() once when a server process starts (not during `next build`).
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // First, so spans from the start on have a provider; a no-op unless OTEL_* asks for traces.
  const { startWebTelemetry } = await import("./lib/server/telemetry");
  await startWebTelemetry();
  // The socket's peer and local address as headers a client cannot forge (sign-in throttling, the loopback guard).
  const { installPeerHook } = await import("./lib/auth");
  installPeerHook();
  const { startWebRetention } = await import("./lib/server/retention");
  startWebRetention();
  const { startWebScheduler } = await import("./lib/server/scheduler");
  startWebScheduler();
  // A superuser or BYPASSRLS database role is logged once (review 3, F4; docs/deploy.md, "Database roles").
  const { warnIfPrivilegedRole } = await import("./lib/server/role-check");
  warnIfPrivilegedRole();
}
