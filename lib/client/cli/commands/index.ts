/**
 * Every CLI command group, registered on import (see registry.ts). To add a group, write
 * commands/<name>.ts calling registerCommand(...) and add one `import "./<name>";` line here.
 */
import "./tenants";
import "./keys";
import "./routes";
import "./operators";
import "./demo";
import "./call";
import "./tasks";
import "./retention";

export { type CliIo, type CommandGroup, commands, registerCommand, type Verb } from "./registry";
