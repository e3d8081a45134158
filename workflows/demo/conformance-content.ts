import { defineWorkflow, type InputRequest } from "@runifold/sdk";
import { z } from "zod";

/**
 * The official conformance suite's fixture tools for its tools-* and elicitation scenarios, as real
 * durable workflows (scripts/run-conformance.ts lists which scenarios run and why the rest do not
 * apply). Each returns exactly what its scenario's "Server Implementation Requirements" describe.
 */

/** A 1×1 red PNG (the scenario asks for a minimal test image). */
const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/** Eight samples of silence: 8 kHz, mono, 8-bit PCM WAV. */
const SILENT_WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const noArguments = z.object({}).passthrough();

const simpleText = defineWorkflow({
  name: "conformance-simple-text",
  version: 1,
  description: "Returns one text content block.",
  asks: {},
  input: noArguments,
  async run() {
    return { content: [{ type: "text", text: "This is a simple text response for testing." }] };
  },
});

const imageContent = defineWorkflow({
  name: "conformance-image-content",
  version: 1,
  description: "Returns an image content block (a 1×1 PNG).",
  asks: {},
  input: noArguments,
  async run() {
    return { content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] };
  },
});

const audioContent = defineWorkflow({
  name: "conformance-audio-content",
  version: 1,
  description: "Returns an audio content block (a short WAV).",
  asks: {},
  input: noArguments,
  async run() {
    return { content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }] };
  },
});

const embeddedResource = defineWorkflow({
  name: "conformance-embedded-resource",
  version: 1,
  description: "Returns an embedded text resource.",
  asks: {},
  input: noArguments,
  async run() {
    return {
      content: [
        {
          type: "resource",
          resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
        },
      ],
    };
  },
});

const multipleContentTypes = defineWorkflow({
  name: "conformance-multiple-content-types",
  version: 1,
  description: "Returns text, an image and an embedded resource.",
  asks: {},
  input: noArguments,
  async run() {
    return {
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
        },
      ],
    };
  },
});

const errorHandling = defineWorkflow({
  name: "conformance-error-handling",
  version: 1,
  description: "Always ends with a tool error (isError: true).",
  asks: {},
  input: noArguments,
  async run() {
    return { content: [{ type: "text", text: "This tool intentionally returns an error for testing" }], isError: true };
  },
});

const toolWithProgress = defineWorkflow({
  name: "conformance-tool-with-progress",
  version: 1,
  description: "Reports progress 0, 50 and 100 of 100 with pauses between.",
  asks: {},
  input: noArguments,
  async run(ctx) {
    // Durable sleeps between reports (the scenario asks ~50 ms; a second lets each report reach the
    // call's stream on its own rather than coalesced with the next).
    await ctx.progress({ progress: 0, total: 100 });
    await ctx.sleep("first-half", 1_000);
    await ctx.progress({ progress: 50, total: 100 });
    await ctx.sleep("second-half", 1_000);
    await ctx.progress({ progress: 100, total: 100 });
    return { content: [{ type: "text", text: "Progress test completed: 0, 50 and 100 of 100 reported." }] };
  },
});

/** One form question; the answer is written back the way the scenarios ask. */
function askOnce(name: string, description: string, key: string, request: InputRequest, prefix: string) {
  return defineWorkflow({
    name,
    version: 1,
    description,
    asks: { input: true },
    input: z.object({ message: z.string().max(1_000).optional() }).passthrough(),
    async run(ctx, input) {
      const asked =
        input.message && request.method === "elicitation/create"
          ? { ...request, params: { ...request.params, message: input.message } }
          : request;
      const answer = await ctx.requestInput(key, asked as InputRequest);
      return {
        content: [{ type: "text", text: `${prefix}action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}` }],
      };
    },
  });
}

const elicitation = askOnce(
  "conformance-elicitation",
  "Asks the user (elicitation/create) for a username and an email.",
  "user_info",
  {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: "Please provide your information",
      requestedSchema: {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      },
    },
  },
  "User response: ",
);

const elicitationDefaults = askOnce(
  "conformance-elicitation-defaults",
  "Asks a question whose fields all have defaults (SEP-1034).",
  "defaults",
  {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: "Please review these defaults",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", default: "John Doe" },
          age: { type: "integer", default: 30 },
          score: { type: "number", default: 95.5 },
          status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", default: true },
        },
      },
    },
  },
  "Elicitation completed: ",
);

const elicitationEnums = askOnce(
  "conformance-elicitation-enums",
  "Asks a question with every enum form of SEP-1330.",
  "enums",
  {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: "Please choose",
      requestedSchema: {
        type: "object",
        properties: {
          untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
          titledSingle: {
            type: "string",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
          untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
          titledMulti: {
            type: "array",
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
      },
    },
  } as InputRequest,
  "Elicitation completed: ",
);

export const conformanceContentWorkflows = [
  simpleText,
  imageContent,
  audioContent,
  embeddedResource,
  multipleContentTypes,
  errorHandling,
  toolWithProgress,
  elicitation,
  elicitationDefaults,
  elicitationEnums,
];

/** Tool name → workflow, as the suite's scenarios call them (task support optional: they are plain calls). */
export const CONFORMANCE_CONTENT_TOOLS = [
  { tool: "test_simple_text", workflow: simpleText },
  { tool: "test_image_content", workflow: imageContent },
  { tool: "test_audio_content", workflow: audioContent },
  { tool: "test_embedded_resource", workflow: embeddedResource },
  { tool: "test_multiple_content_types", workflow: multipleContentTypes },
  { tool: "test_error_handling", workflow: errorHandling },
  { tool: "test_tool_with_progress", workflow: toolWithProgress },
  { tool: "test_elicitation", workflow: elicitation },
  { tool: "test_elicitation_sep1034_defaults", workflow: elicitationDefaults },
  { tool: "test_elicitation_sep1330_enums", workflow: elicitationEnums },
] as const;
