/**
 * The bad-input corpus, generated systematically: for each method, every parameter is dropped and
 * replaced by each hostile value; then the envelope, the _meta, the headers and the raw body are
 * mutated the same way. Plus CLI argv and UI query-string cases.
 */
const HOSTILE: [string, unknown][] = [
  ["null", null],
  ["true", true],
  ["zero", 0],
  ["negative", -1],
  ["float", 1.5],
  ["huge number", 1e308],
  ["unsafe integer", 2 ** 53 + 1],
  ["empty string", ""],
  ["long string", "x".repeat(20_000)],
  ["sql", "' OR 1=1; DROP TABLE runs; --"],
  ["path", "../../../etc/passwd"],
  ["bidi", "\u202etxt.exe"],
  ["emoji", "🧨".repeat(50)],
  ["empty array", []],
  ["empty object", {}],
  ["nested", { a: [{ b: [{ c: [[[{}]]] }] }] }],
  ["proto pollution", JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}')],
];

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
};

export type HttpCase = { name: string; body: string; headers: Record<string, string> };

function modern(
  method: string,
  params: Record<string, unknown>,
  extra: { meta?: unknown; headers?: Record<string, string>; envelope?: Record<string, unknown> } = {},
): HttpCase {
  const name = method === "tools/call" ? params.name : method.startsWith("tasks/") ? params.taskId : undefined;
  const headers: Record<string, string> = {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
    ...(typeof name === "string" && name.length < 1_000 && /^[\x20-\x7e]*$/.test(name) ? { "mcp-name": name } : {}),
    ...extra.headers,
  };
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method,
    params: { ...params, _meta: extra.meta === undefined ? META : extra.meta },
    ...extra.envelope,
  };
  return { name: method, body: JSON.stringify(body), headers };
}

export function httpCases(taskId: string): HttpCase[] {
  const bases: [string, Record<string, unknown>][] = [
    ["tools/call", { name: "slow_compute", arguments: { seconds: 0 } }],
    ["tools/call", { name: "confirm_delete", arguments: { filename: "a.txt" } }],
    ["tasks/get", { taskId }],
    ["tasks/update", { taskId, inputResponses: { confirm: { action: "accept", content: { confirm: true } } } }],
    ["tasks/cancel", { taskId }],
    ["subscriptions/listen", { notifications: { taskIds: [taskId] } }],
    ["tools/list", { cursor: "x" }],
  ];
  const cases: HttpCase[] = [];
  for (const [method, params] of bases) {
    for (const key of Object.keys(params)) {
      const { [key]: _dropped, ...rest } = params;
      cases.push({ ...modern(method, rest), name: `${method}: without ${key}` });
      for (const [label, value] of HOSTILE)
        cases.push({ ...modern(method, { ...params, [key]: value }), name: `${method}: ${key} = ${label}` });
    }
  }
  // Nested arguments of tools/call, and hostile tool arguments against each schema.
  for (const [label, value] of HOSTILE) {
    cases.push({
      ...modern("tools/call", { name: "slow_compute", arguments: { seconds: value } }),
      name: `tools/call: seconds = ${label}`,
    });
    cases.push({
      ...modern("tasks/update", { taskId, inputResponses: { confirm: value } }),
      name: `tasks/update: response = ${label}`,
    });
  }
  // Envelope fields.
  for (const [field, values] of [
    ["jsonrpc", ["1.0", 2, null, ""]],
    ["id", [{}, [], true, null, 1.5]],
    ["method", [5, "", "TOOLS/CALL", "tools/call ", "__proto__"]],
  ] as [string, unknown[]][]) {
    for (const value of values)
      cases.push({
        ...modern("tools/list", {}, { envelope: { [field]: value } }),
        name: `envelope ${field} = ${JSON.stringify(value)}`,
      });
  }
  for (const value of [[], "x", 5, null]) {
    cases.push({
      name: `params = ${JSON.stringify(value)}`,
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: value }),
    });
  }
  // _meta.
  for (const meta of [
    null,
    "x",
    [],
    {},
    { ...META, "io.modelcontextprotocol/protocolVersion": 5 },
    { ...META, "io.modelcontextprotocol/protocolVersion": "2026-07-28x" },
    { ...META, "io.modelcontextprotocol/clientCapabilities": "x" },
    { ...META, "io.modelcontextprotocol/clientCapabilities": { extensions: [] } },
  ]) {
    cases.push({ ...modern("tasks/get", { taskId }, { meta }), name: `_meta = ${JSON.stringify(meta).slice(0, 80)}` });
  }
  // Headers.
  const headerCases: Record<string, string>[] = [
    { "mcp-protocol-version": "" },
    { "mcp-protocol-version": "9999-99-99" },
    { "mcp-method": "tasks/cancel" },
    { "mcp-name": "someone-else" },
    { "content-type": "text/plain" },
    { "content-type": "application/json; charset=latin1" },
    { authorization: "Bearer rf_0000000000000000_nope" },
    { authorization: "Basic Zm9vOmJhcg==" },
    { authorization: `Bearer ${"A".repeat(10_000)}` },
    { origin: "https://evil.example" },
  ];
  for (const headers of headerCases) {
    cases.push({ ...modern("tasks/get", { taskId }, { headers }), name: `header ${JSON.stringify(headers).slice(0, 60)}` });
  }
  // Raw bodies.
  const raw = [
    "",
    "{",
    "[]",
    "null",
    '"str"',
    "42",
    "\ufeff{}",
    `${"[".repeat(3_000)}${"]".repeat(3_000)}`,
    `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${JSON.stringify(META)}}`,
    "\u0000",
  ];
  for (const body of raw)
    cases.push({
      name: `raw body ${JSON.stringify(body.slice(0, 20))}`,
      body,
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    });
  // Legacy era (no 2026 _meta): the same hostile values in its methods.
  for (const [method, params] of [
    ["initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } }],
    ["tools/call", { name: "slow_compute", arguments: { seconds: 0 }, task: { ttl: 1000 } }],
    ["tasks/get", { taskId }],
    ["tasks/result", { taskId }],
    ["tasks/list", { cursor: "x" }],
  ] as [string, Record<string, unknown>][]) {
    for (const key of Object.keys(params)) {
      for (const [label, value] of HOSTILE.slice(0, 10)) {
        cases.push({
          name: `legacy ${method}: ${key} = ${label}`,
          headers: {},
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, [key]: value } }),
        });
      }
    }
  }
  return cases;
}

export function cliCases(taskId: string): string[][] {
  return [
    ["nope"],
    ["tasks"],
    ["tasks", "get"],
    ["tasks", "get", "not-a-uuid"],
    ["tasks", "get", taskId],
    ["tasks", "get", "' OR 1=1 --"],
    ["tasks", "cancel", "x".repeat(5_000)],
    ["tasks", "answer", taskId, "--input", "confirm={bad json"],
    ["tasks", "answer", taskId, "--input", "=1"],
    ["tasks", "wait", taskId, "--timeout", "-5"],
    ["tasks", "listen"],
    ["call"],
    ["call", "slow_compute", "--args", "{not json"],
    ["call", "slow_compute", "--args", "[1,2]"],
    ["call", "slow_compute", "--args", '{"seconds":"x"}'],
    ["call", "slow_compute", "--args", '{"seconds":-1}'],
    ["call", "no_such_tool", "--args", "{}"],
    ["call", "slow_compute", "--url", "not a url"],
    ["call", "slow_compute", "--key", "rf_garbage"],
    ["call", "slow_compute", "--unknown-flag"],
    ["tenants", "create"],
    ["tenants", "create", "../../etc"],
    ["tenants", "create", "UPPER CASE"],
    ["tenants", "create", ""],
    ["keys", "create"],
    ["keys", "create", "--tenant", "does-not-exist"],
    ["keys", "create", "--tenant", "conformance", "--scopes", "root,admin"],
    ["keys", "revoke", "nope"],
    ["keys", "list", "--tenant", "' OR 1=1 --"],
    ["routes", "add", "--tenant", "conformance", "--tool", "x", "--workflow", "nope", "--version", "abc"],
    ["routes", "add", "--tenant", "conformance", "--tool", "x", "--workflow", "nope", "--version", "-1"],
    ["routes", "add", "--tenant", "nope", "--tool", "x", "--workflow", "conformance-greet", "--version", "1"],
    [
      "routes",
      "add",
      "--tenant",
      "conformance",
      "--tool",
      "bad tool name!",
      "--workflow",
      "conformance-greet",
      "--version",
      "1",
      "--task-support",
      "sometimes",
    ],
    ["routes", "disable", "--tenant", "conformance", "--tool", "no_such_tool"],
    ["operators", "create", "--email", "not-an-email", "--password", "x", "--role", "admin"],
    ["operators", "create", "--email", "a@b.test", "--password", "x", "--role", "root"],
    ["retention", "run", "--bogus"],
  ];
}

export type UiCase = { name: string; path: string; detail?: string; signedIn: boolean };

export function uiCases(taskId: string): UiCase[] {
  const values = ["", "x", "' OR 1=1 --", "%00", "9".repeat(40), "2026-13-45", "-1", "../../", "🧨", "null"];
  const cases: UiCase[] = [];
  for (const param of ["cursor", "tenant", "status", "from", "to", "q", "tool"]) {
    for (const value of values)
      cases.push({ name: `list ${param}=${value.slice(0, 12)}`, path: `?${param}=${encodeURIComponent(value)}`, signedIn: true });
  }
  for (const id of ["x", "' OR 1=1 --", taskId, "0".repeat(500)]) {
    cases.push({ name: `detail ${id.slice(0, 12)}`, path: `/${encodeURIComponent(id)}`, detail: id, signedIn: true });
    cases.push({
      name: `detail ${id.slice(0, 12)} before=junk`,
      path: `/${encodeURIComponent(id)}?before=abc`,
      detail: id,
      signedIn: true,
    });
  }
  cases.push({ name: "list signed out", path: "", signedIn: false });
  cases.push({ name: "detail signed out", path: `/${taskId}`, detail: taskId, signedIn: false });
  return cases;
}
