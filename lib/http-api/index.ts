export type { VerifyBearer } from "./bearer-auth";
export type { HttpApiDeps, SignalRouteParams } from "./signal-handler";
export { createSignalHandler } from "./signal-handler";
