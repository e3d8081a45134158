export { type AdminApi, AdminApiError, allPages, createAdminApi, seg } from "./admin-api";
export { runCli } from "./run";
