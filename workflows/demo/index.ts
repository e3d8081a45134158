import { createRegistry } from "@runifold/sdk";
import { approveExpense } from "./approve-expense";
import { conformanceWorkflows } from "./conformance";
import { conformanceContentWorkflows } from "./conformance-content";
import { conformanceRoundWorkflows } from "./conformance-rounds";
import { generateReport } from "./generate-report";

/** Every workflow this build ships; workers serve all of them and the web app validates inputs with them. */
export const shippedWorkflows = createRegistry([
  generateReport,
  approveExpense,
  ...conformanceWorkflows,
  ...conformanceContentWorkflows,
  ...conformanceRoundWorkflows,
]);

/** The module's definitions, as `runifold-worker --workflows workflows/demo/index.ts` loads them. */
export default shippedWorkflows.all();
