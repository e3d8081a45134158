// The yes/no question both builds of invoice-total ask.
export function ask(message) {
  return {
    method: "elicitation/create",
    params: {
      mode: "form",
      message,
      requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
    },
  };
}
