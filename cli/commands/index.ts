/**
 * Every CLI command group, registered on import (see registry.ts). To add a group, write
 * commands/<name>.ts calling registerCommand(...) and add one `import "./<name>";` line here.
 */
import "./admin/tenants";
import "./admin/keys";
import "./admin/routes";
import "./admin/definitions";
import "./admin/operators";
import "./admin/demo";
import "./client/call";
import "./client/tasks";
import "./client/approvals";
import "./admin/retention";
import "./admin/audit";
import "./admin/db";

export { type CliIo, type CommandGroup, commands, registerCommand, type Verb } from "./registry";
