/**
 * Which of the official conformance suite's server scenarios apply to Runifold — a tools-and-tasks
 * server whose tools are durable workflows — and why the others do not. scripts/run-conformance.ts
 * runs every applicable one and fails if the suite lists a server scenario that is in neither list,
 * so a suite upgrade cannot add a scenario that is silently never run. docs/clients.md repeats this.
 */

/** Run on every `npm test`; each must pass (the fixture tools live in workflows/demo/conformance*.ts). */
export const APPLICABLE_SCENARIOS = [
  // Lifecycle and transport, both eras.
  "server-initialize",
  "server-session-lifecycle",
  "server-stateless",
  "ping",
  "dns-rebinding-protection",
  "http-header-validation",
  "caching",
  "server-sse-polling",
  "server-sse-multiple-streams",
  // Tools.
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-elicitation",
  "json-schema-2020-12",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  // 2026-07-28 input rounds (SEP-2322) that ask form questions.
  "input-required-result-basic-elicitation",
  "input-required-result-request-state",
  "input-required-result-multi-round",
  "input-required-result-missing-input-response",
  "input-required-result-result-type",
  "input-required-result-unsupported-methods",
  "input-required-result-tampered-state",
  "input-required-result-ignore-extra-params",
  "input-required-result-validate-input",
  // Not-found answers and extension discovery this server answers correctly by having none.
  "sep-2164-resource-not-found",
  "sep-2640-skills-directory",
  "sep-2640-skills-enumeration",
  "sep-2640-skills-manifest",
  // The tasks extension.
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
] as const;

const NO_PROMPTS = "Runifold serves tools only: no prompts capability (prompts are out of scope, issue 29).";
const NO_RESOURCES = "Runifold serves tools only: no resources capability (resources are out of scope, issue 29).";
const NO_SAMPLING =
  "A durable run asks people, never the client's model: workflows can ask form (and URL) elicitation only, so no tool sends sampling/createMessage or roots/list.";

/** Scenario → why it does not apply. */
export const NOT_APPLICABLE_SCENARIOS: Record<string, string> = {
  "logging-set-level": "No logging capability: a run's logs go to the operator console and traces, not to the MCP client.",
  "tools-call-with-logging": "No logging capability (see logging-set-level).",
  "completion-complete":
    "No completions capability (completion serves prompt and resource arguments, which Runifold has none of).",
  "tools-call-sampling": NO_SAMPLING,
  "input-required-result-basic-sampling": NO_SAMPLING,
  "input-required-result-basic-list-roots": NO_SAMPLING,
  "input-required-result-multiple-input-requests": `${NO_SAMPLING} (its one round mixes elicitation, sampling and roots/list.)`,
  "input-required-result-capability-check": `${NO_SAMPLING} (it declares only sampling and expects sampling input requests.)`,
  "input-required-result-non-tool-request": `${NO_PROMPTS} (it drives an input round through prompts/get.)`,
  "http-custom-header-server-validation":
    "No tool declares x-mcp-header parameter annotations (SEP-2243), so there is nothing for the server to validate.",
  "resources-list": NO_RESOURCES,
  "resources-read-text": NO_RESOURCES,
  "resources-read-binary": NO_RESOURCES,
  "resources-templates-read": NO_RESOURCES,
  "resources-subscribe": NO_RESOURCES,
  "resources-unsubscribe": NO_RESOURCES,
  "prompts-list": NO_PROMPTS,
  "prompts-get-simple": NO_PROMPTS,
  "prompts-get-with-args": NO_PROMPTS,
  "prompts-get-embedded-resource": NO_PROMPTS,
  "prompts-get-with-image": NO_PROMPTS,
};

/** Single checks inside an applicable scenario that cannot apply, with why; reported, never counted as passed. */
export const NOT_APPLICABLE_CHECKS: Record<string, string> = {
  "sep-2575-server-rejects-undeclared-capability": `It needs a tool that requires the client's sampling capability. ${NO_SAMPLING}`,
  "sep-2549-prompts-list-caching-hints": NO_PROMPTS,
  "sep-2549-resources-list-caching-hints": NO_RESOURCES,
  "sep-2549-resources-templates-list-caching-hints": NO_RESOURCES,
  "sep-2549-resources-read-caching-hints": NO_RESOURCES,
};
