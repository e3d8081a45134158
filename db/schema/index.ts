export * from "./api-keys";
export * from "./operators";
export * from "./protocol-state";
export * from "./retention";
export * from "./routes";
export * from "./runs";
export * from "./tenants";
export * from "./workers";
