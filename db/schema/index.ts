export * from "./api-keys";
export * from "./routes";
export * from "./runs";
export * from "./tenants";
export * from "./workers";
export * from "./protocol-state";
export * from "./operators";
export * from "./retention";
