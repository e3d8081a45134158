export { routeFromWorkflow, toolInputSchema } from "./route-from-workflow";
