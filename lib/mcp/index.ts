export { authenticate } from "./auth-gate";
export { handleMcpPost } from "./handle-mcp-request";
export { createMcpRouteHandler, methodNotAllowed } from "./with-mcp-auth";
