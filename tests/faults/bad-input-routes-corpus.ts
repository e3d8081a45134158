/**
 * The bad-input corpus of the newer routes, generated like tests/faults/bad-input-corpus.ts: for
 * each endpoint, every parameter of a well-formed request is dropped, then replaced by each hostile
 * value; then content types, raw bodies (oversized, chunked over the cap, non-UTF-8, JSON where a
 * form belongs) and credentials are mutated. Sizes follow RUNIFOLD_FAULTS (quick/full).
 *
 *  - OAuth: POST /api/oauth/register (JSON), /api/oauth/token (form), /api/oauth/revoke (form), and
 *    the authorization request's query (validateAuthorizationRequest, as the consent page calls it);
 *  - HTTP API: POST /api/v1/tasks/{id}/signals/{name} (path segments, bodies, Authorization);
 *  - sign-in: next-auth's password sign-in (/api/auth/callback/credentials, /api/auth/csrf), and
 *    the login page's CSRF cookie route (/login/csrf);
 *  - console filters: the task list (GET /api/ui/tasks), the audit CSV (GET /api/ui/audit.csv) and
 *    the Audit page's loader, every filter parameter replaced by each hostile value;
 *  - methods: TRACE, TRACK and other unusual methods on pages, the HTTP API and MCP.
 */
import { size } from "./support";

/** Hostile JSON values (a parameter of a JSON body). */
export const HOSTILE_JSON: [string, unknown][] = [
  ["null", null],
  ["true", true],
  ["zero", 0],
  ["negative", -1],
  ["huge number", 1e308],
  ["empty string", ""],
  ["long string", "x".repeat(20_000)],
  ["sql", "' OR 1=1; DROP TABLE oauth_clients; --"],
  ["nul", "a\u0000b"],
  ["lone surrogate", "\ud800"],
  ["bidi", "\u202etxt.exe"],
  ["control chars", "\u0001\u0007\u001b[31m\r\n"],
  ["emoji", "🧨".repeat(50)],
  ["empty array", []],
  ["array of hostile", ["javascript:alert(1)", null, 5, {}]],
  ["empty object", {}],
  ["nested", { a: [{ b: [{ c: [[[{}]]] }] }] }],
  ["proto pollution", JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}')],
];

/** Hostile strings (a form parameter, a query parameter, a path segment, a header). */
export const HOSTILE_TEXT: [string, string][] = [
  ["empty", ""],
  ["space", " "],
  ["long", "x".repeat(size(5_000, 20_000))],
  ["sql", "' OR 1=1; DROP TABLE oauth_tokens; --"],
  ["path", "../../../etc/passwd"],
  ["nul", "a\u0000b"],
  ["control chars", "\u0001\u0007\u001b[31m\r\nX-Injected: 1"],
  ["bidi", "\u202etxt.exe"],
  ["emoji", "🧨".repeat(50)],
  ["lone surrogate", "\ud800"],
  ["url", "https://evil.example/cb"],
  ["javascript", "javascript:alert(1)"],
  ["json", '{"a":1}'],
  ["percent junk", "%ZZ%00%"],
  ...size<[string, string][]>(
    [],
    [
      ["very long", "y".repeat(200_000)],
      ["unicode escapes", "\\u0000\\ud800"],
      ["crlf only", "\r\n\r\n"],
    ],
  ),
];

/** A raw HTTP request of a case: a string or bytes body; `chunked` streams it without a Content-Length. */
export type RawRequest = {
  name: string;
  method?: "GET" | "POST" | "TRACE" | "TRACK" | "PROPFIND" | "PATCH" | "PUT" | "DELETE" | "OPTIONS";
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  chunked?: boolean;
};

const NON_UTF8 = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0xc3, 0x28, 0xff, 0xfe, 0x7d]); // {"a":<invalid>}
const formOf = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { "content-type": "application/x-www-form-urlencoded" };
const JSON_TYPE = { "content-type": "application/json" };

/** Content types and raw bodies every form-encoded endpoint gets, besides its parameter cases. */
function formEnvelopeCases(path: string, label: string, valid: Record<string, string>, capBytes: number): RawRequest[] {
  const body = formOf(valid);
  const cases: RawRequest[] = [];
  for (const type of [
    undefined,
    "",
    "text/plain",
    "application/json",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded; charset=latin1",
    "APPLICATION/X-WWW-FORM-URLENCODED",
    "application/x-www-form-urlencoded, application/json",
  ]) {
    cases.push({
      name: `${label}: content-type ${JSON.stringify(type)}`,
      path,
      headers: type === undefined ? {} : { "content-type": type },
      body,
    });
  }
  cases.push({ name: `${label}: JSON instead of form`, path, headers: JSON_TYPE, body: JSON.stringify(valid) });
  cases.push({ name: `${label}: JSON labelled as form`, path, headers: FORM, body: JSON.stringify(valid) });
  for (const [name, raw] of [
    ["empty body", ""],
    ["only separators", "&&&==&"],
    ["bare keys", Object.keys(valid).join("&")],
    ["bad percent-encoding", `${body}&x=%ZZ%E0%A4%A`],
    ["encoded NUL keys", `${body}&%00=%00`],
    ["BOM", `\ufeff${body}`],
    ["many parameters", Array.from({ length: 1_500 }, (_, i) => `p${i}=1`).join("&")],
  ] as [string, string][]) {
    cases.push({ name: `${label}: ${name}`, path, headers: FORM, body: raw });
  }
  cases.push({ name: `${label}: non-UTF-8 bytes`, path, headers: FORM, body: NON_UTF8 });
  cases.push({ name: `${label}: oversized body`, path, headers: FORM, body: `${body}&pad=${"p".repeat(capBytes + 10)}` });
  cases.push({
    name: `${label}: chunked over the cap`,
    path,
    headers: FORM,
    body: `${body}&pad=${"p".repeat(capBytes + 10)}`,
    chunked: true,
  });
  // Each parameter sent twice (RFC 6749 §3.1), once with the same value, once with another.
  for (const key of Object.keys(valid)) {
    cases.push({
      name: `${label}: duplicated ${key}`,
      path,
      headers: FORM,
      body: `${body}&${key}=${encodeURIComponent(valid[key] as string)}`,
    });
    cases.push({ name: `${label}: duplicated ${key} (other value)`, path, headers: FORM, body: `${body}&${key}=other` });
  }
  return cases;
}

/** Each parameter of a form dropped, then replaced by each hostile string. */
function formParameterCases(path: string, label: string, valid: Record<string, string>): RawRequest[] {
  const cases: RawRequest[] = [];
  for (const key of Object.keys(valid)) {
    const { [key]: _dropped, ...rest } = valid;
    cases.push({ name: `${label}: without ${key}`, path, headers: FORM, body: formOf(rest) });
    for (const [name, value] of HOSTILE_TEXT) {
      cases.push({ name: `${label}: ${key} = ${name}`, path, headers: FORM, body: formOf({ ...valid, [key]: value }) });
    }
  }
  return cases;
}

export const OAUTH_BODY_CAP = 16_384; // lib/oauth/read-body.ts MAX_OAUTH_BODY_BYTES

export const REDIRECT_URI = "http://127.0.0.1:8765/callback";

export function registrationCases(): RawRequest[] {
  const path = "/api/oauth/register";
  const valid: Record<string, unknown> = {
    client_name: "Faults client",
    redirect_uris: [REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    scope: "mcp",
    client_uri: "https://client.example",
    logo_uri: "https://client.example/logo.png",
  };
  const json = (body: unknown) => JSON.stringify(body);
  const cases: RawRequest[] = [];
  for (const key of Object.keys(valid)) {
    const { [key]: _dropped, ...rest } = valid;
    cases.push({ name: `register: without ${key}`, path, headers: JSON_TYPE, body: json(rest) });
    for (const [name, value] of HOSTILE_JSON) {
      cases.push({ name: `register: ${key} = ${name}`, path, headers: JSON_TYPE, body: json({ ...valid, [key]: value }) });
    }
  }
  for (const [name, value] of HOSTILE_TEXT) {
    cases.push({
      name: `register: redirect_uri = ${name}`,
      path,
      headers: JSON_TYPE,
      body: json({ ...valid, redirect_uris: [value] }),
    });
  }
  for (const uri of [
    "http://evil.example/cb",
    "https://127.0.0.1:8765/cb#fragment",
    "http://user:pass@127.0.0.1/cb",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "http://[::1",
    "HTTP://LOCALHOST/cb",
    "com.example.app:/callback",
  ]) {
    cases.push({
      name: `register: redirect_uri ${uri.slice(0, 40)}`,
      path,
      headers: JSON_TYPE,
      body: json({ ...valid, redirect_uris: [uri] }),
    });
  }
  cases.push({
    name: "register: thousands of redirect_uris",
    path,
    headers: JSON_TYPE,
    body: json({ ...valid, redirect_uris: Array.from({ length: 600 }, (_, i) => `http://127.0.0.1:${i}/cb`) }),
  });
  cases.push({
    name: "register: client_secret asked for",
    path,
    headers: JSON_TYPE,
    body: json({ ...valid, token_endpoint_auth_method: "client_secret_basic" }),
  });
  cases.push({
    name: "register: grant_types implicit",
    path,
    headers: JSON_TYPE,
    body: json({ ...valid, grant_types: ["implicit", "password"] }),
  });
  cases.push({
    name: "register: response_types token",
    path,
    headers: JSON_TYPE,
    body: json({ ...valid, response_types: ["token"] }),
  });
  cases.push({ name: "register: unknown scope", path, headers: JSON_TYPE, body: json({ ...valid, scope: "root admin mcp" }) });
  for (const type of [
    undefined,
    "",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json-patch+json",
    "application/json; charset=latin1",
  ]) {
    cases.push({
      name: `register: content-type ${JSON.stringify(type)}`,
      path,
      headers: type === undefined ? {} : { "content-type": type },
      body: json(valid),
    });
  }
  for (const [name, raw] of [
    ["empty body", ""],
    ["truncated", "{"],
    ["array", "[]"],
    ["null", "null"],
    ["string", '"x"'],
    ["number", "42"],
    ["BOM", `\ufeff${json(valid)}`],
    ["deep nesting", `${"[".repeat(5_000)}${"]".repeat(5_000)}`],
    ["duplicate keys", '{"client_name":"a","client_name":"b","redirect_uris":["http://127.0.0.1:8765/callback"]}'],
    ["escaped NUL", '{"client_name":"\\u0000","redirect_uris":["http://127.0.0.1:8765/callback"]}'],
    ["form instead of JSON", "client_name=x&redirect_uris=http://127.0.0.1:8765/callback"],
  ] as [string, string][]) {
    cases.push({ name: `register: ${name}`, path, headers: JSON_TYPE, body: raw });
  }
  cases.push({ name: "register: non-UTF-8 bytes", path, headers: JSON_TYPE, body: NON_UTF8 });
  cases.push({
    name: "register: oversized body",
    path,
    headers: JSON_TYPE,
    body: json({ ...valid, client_name: "n".repeat(OAUTH_BODY_CAP) }),
  });
  cases.push({
    name: "register: chunked over the cap",
    path,
    headers: JSON_TYPE,
    body: json({ ...valid, client_name: "n".repeat(OAUTH_BODY_CAP) }),
    chunked: true,
  });
  return cases;
}

/**
 * Placeholders a token case's body carries, replaced per case by the run with a fresh client, code
 * and refresh token (so one case's outcome, e.g. a consumed code, never changes the next one's).
 */
export const PLACEHOLDER = {
  client: "__CLIENT__",
  code: "__CODE__",
  verifier: "__VERIFIER__",
  refresh: "__REFRESH__",
  resource: "__RESOURCE__",
} as const;

export function tokenCases(): RawRequest[] {
  const path = "/api/oauth/token";
  const P = PLACEHOLDER;
  const codeForm = {
    grant_type: "authorization_code",
    code: P.code,
    redirect_uri: REDIRECT_URI,
    client_id: P.client,
    code_verifier: P.verifier,
    resource: P.resource,
  };
  const refreshForm = {
    grant_type: "refresh_token",
    refresh_token: P.refresh,
    client_id: P.client,
    resource: P.resource,
    scope: "mcp",
  };
  const cases: RawRequest[] = [
    ...formParameterCases(path, "token authorization_code", codeForm),
    ...formEnvelopeCases(path, "token authorization_code", codeForm, OAUTH_BODY_CAP),
    ...formParameterCases(path, "token refresh_token", refreshForm),
    ...formEnvelopeCases(path, "token refresh_token", refreshForm, OAUTH_BODY_CAP),
  ];
  for (const grant of [
    "password",
    "client_credentials",
    "implicit",
    "urn:ietf:params:oauth:grant-type:device_code",
    "AUTHORIZATION_CODE",
    "refresh_token ",
    "token-exchange",
  ]) {
    cases.push({
      name: `token: grant_type ${grant}`,
      path,
      headers: FORM,
      body: formOf({ ...codeForm, grant_type: grant, username: "admin", password: "x", client_secret: "s" }),
    });
  }
  cases.push({
    name: "token: code of another client",
    path,
    headers: FORM,
    body: formOf({ ...codeForm, client_id: "dcr_someone_else" }),
  });
  cases.push({ name: "token: refresh token as code", path, headers: FORM, body: formOf({ ...codeForm, code: P.refresh }) });
  cases.push({
    name: "token: code as refresh token",
    path,
    headers: FORM,
    body: formOf({ ...refreshForm, refresh_token: P.code }),
  });
  cases.push({
    name: "token: wider scope on refresh",
    path,
    headers: FORM,
    body: formOf({ ...refreshForm, scope: "mcp tasks:read tasks:write admin" }),
  });
  cases.push({ name: "token: empty POST", path, headers: {} });
  return cases;
}

export function revocationCases(f: { clientId: string; accessToken: string }): RawRequest[] {
  const path = "/api/oauth/revoke";
  const valid = { token: f.accessToken, token_type_hint: "access_token", client_id: "dcr_not_the_owner" };
  // The valid form names another client, so every variant is refused (invalid_client) or a no-op 200.
  return [
    ...formParameterCases(path, "revoke", valid),
    ...formEnvelopeCases(path, "revoke", valid, OAUTH_BODY_CAP),
    {
      name: "revoke: owner's token, foreign client",
      path,
      headers: FORM,
      body: formOf({ token: f.accessToken, client_id: `${f.clientId}x` }),
    },
  ];
}

/** Query strings of the authorization request (GET /oauth/authorize → validateAuthorizationRequest). */
export function authorizationQueries(f: {
  clientId: string;
  challenge: string;
  resource: string;
}): { name: string; query: string }[] {
  const valid: Record<string, string> = {
    response_type: "code",
    client_id: f.clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: f.challenge,
    code_challenge_method: "S256",
    resource: f.resource,
    scope: "mcp",
    state: "st-1",
  };
  const q = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const cases: { name: string; query: string }[] = [];
  for (const key of Object.keys(valid)) {
    const { [key]: _dropped, ...rest } = valid;
    cases.push({ name: `authorize: without ${key}`, query: q(rest) });
    for (const [name, value] of HOSTILE_TEXT)
      cases.push({ name: `authorize: ${key} = ${name}`, query: q({ ...valid, [key]: value }) });
    cases.push({ name: `authorize: duplicated ${key}`, query: `${q(valid)}&${key}=other` });
  }
  for (const [name, value] of [
    ["client_id CIMD on a private host", "https://10.0.0.1/client.json"],
    ["client_id CIMD with credentials", "https://user:pw@client.example/c.json"],
    ["client_id CIMD http", "http://client.example/c.json"],
    ["client_id CIMD unresolvable", "https://client.invalid/c.json"],
    ["client_id CIMD loopback", "http://127.0.0.1:1/c.json"],
  ]) {
    cases.push({ name: `authorize: ${name}`, query: q({ ...valid, client_id: value as string }) });
  }
  for (const [name, query] of [
    ["empty", ""],
    ["only separators", "&&&==&"],
    ["bad percent-encoding", `${q(valid)}&x=%ZZ%E0%A4%A`],
    ["plain challenge method", q({ ...valid, code_challenge_method: "plain" })],
    ["short challenge", q({ ...valid, code_challenge: "abc" })],
    ["response_type token", q({ ...valid, response_type: "token" })],
    ["redirect_uri prefix of registered", q({ ...valid, redirect_uri: `${REDIRECT_URI}/../evil` })],
    ["redirect_uri other port", q({ ...valid, redirect_uri: "http://127.0.0.1:1/callback" })],
    ["many parameters", Array.from({ length: 2_000 }, (_, i) => `p${i}=1`).join("&")],
  ]) {
    cases.push({ name: `authorize: ${name}`, query: query as string });
  }
  return cases;
}

export const SIGNAL_CAP = 65_536; // lib/tasks/signal-rules.ts SIGNAL_PAYLOAD_MAX_BYTES

/** A path segment exactly as sent (already encoded, so %2F and %00 arrive as written). */
const segment = (value: string) => encodeURIComponent(value.replace(/\p{Cs}/gu, "\ufffd"));

export type SignalCase = RawRequest & { auth: "a" | "readonly" | "b" | "none" | { header: string } };

/** Signal requests; `task` is a queued run of tenant A, `foreign` one of tenant B. */
export function signalCases(f: { task: string; foreign: string }): SignalCase[] {
  const path = (id: string, name: string) => `/api/v1/tasks/${id}/signals/${name}`;
  const ok = path(f.task, "approved");
  const cases: SignalCase[] = [];
  const json = { "content-type": "application/json" };
  for (const [name, value] of HOSTILE_TEXT) {
    if (value === "") continue; // an empty segment is another route (404 from the router)
    cases.push({ name: `signal: id = ${name}`, path: path(segment(value), "approved"), headers: json, body: "{}", auth: "a" });
    cases.push({ name: `signal: name = ${name}`, path: path(f.task, segment(value)), headers: json, body: "{}", auth: "a" });
  }
  for (const [name, raw] of [
    ["encoded slash", "a%2Fb"],
    ["encoded NUL", "%00"],
    ["encoded dot-dot", "%2E%2E"],
    ["overlong UTF-8", "%C0%AF"],
    ["lone percent", "%"],
    ["bidi", "%E2%80%AE"],
    ["uppercase uuid", f.task.toUpperCase()],
    ["uuid plus junk", `${f.task}%20`],
    ["nil uuid", "00000000-0000-0000-0000-000000000000"],
    ["very long", "9".repeat(size(8_000, 60_000))],
  ]) {
    cases.push({ name: `signal: raw id ${name}`, path: path(raw as string, "approved"), headers: json, body: "{}", auth: "a" });
    cases.push({ name: `signal: raw name ${name}`, path: path(f.task, raw as string), headers: json, body: "{}", auth: "a" });
  }
  cases.push({ name: "signal: foreign task", path: path(f.foreign, "approved"), headers: json, body: "{}", auth: "a" });
  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  for (const [name, raw] of [
    ["invalid JSON", "{"],
    ["two values", "{} {}"],
    ["trailing comma", '{"a":1,}'],
    ["NaN", "NaN"],
    ["raw NUL", "\u0000"],
    ["escaped NUL", '"a\\u0000b"'],
    ["escaped NUL key", '{"\\u0000":1}'],
    ["lone surrogate", '"\\ud800"'],
    ["lone surrogate key", '{"\\udc00":1}'],
    ["depth 65 arrays", nested(65)],
    ["depth 65 objects", objects(65)],
    ["depth 10000", nested(10_000)],
    ["huge number", "1e400"],
    ["BOM", '\ufeff{"a":1}'],
    ["over the cap", JSON.stringify("x".repeat(SIGNAL_CAP))],
  ] as [string, string][]) {
    cases.push({ name: `signal: body ${name}`, path: ok, headers: json, body: raw, auth: "a" });
  }
  cases.push({ name: "signal: body non-UTF-8 bytes", path: ok, headers: json, body: NON_UTF8, auth: "a" });
  cases.push({
    name: "signal: body chunked over the cap",
    path: ok,
    headers: json,
    body: JSON.stringify("x".repeat(SIGNAL_CAP + 100)),
    chunked: true,
    auth: "a",
  });
  for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
    cases.push({
      name: `signal: invalid body as ${type}`,
      path: ok,
      headers: { "content-type": type },
      body: "a=1&b",
      auth: "a",
    });
  }
  for (const [name, header] of [
    ["Bearer only", "Bearer"],
    ["Bearer empty", "Bearer "],
    ["garbage key", "Bearer rf_0000000000000000_nope"],
    ["malformed key", "Bearer rf_"],
    ["Basic", "Basic Zm9vOmJhcg=="],
    ["long token", `Bearer ${"A".repeat(size(10_000, 60_000))}`],
    ["OAuth-shaped token", `Bearer ${"a".repeat(43)}`],
    ["two schemes", "Bearer rf_x, Basic Zm9v"],
    ["tabs and latin-1 bytes", "Bearer\trf_\t\u00ff\u00e9"],
  ]) {
    cases.push({
      name: `signal: authorization ${name}`,
      path: ok,
      headers: json,
      body: "{}",
      auth: { header: header as string },
    });
  }
  cases.push({ name: "signal: no authorization", path: ok, headers: json, body: "{}", auth: "none" });
  cases.push({ name: "signal: read-only key", path: ok, headers: json, body: "{}", auth: "readonly" });
  cases.push({ name: "signal: other tenant's key", path: ok, headers: json, body: "{}", auth: "b" });
  cases.push({
    name: "signal: no auth, oversized body",
    path: ok,
    headers: json,
    body: "x".repeat(SIGNAL_CAP * 2),
    auth: "none",
  });
  return cases;
}

/** Next.js itself decodes the path segments: a few of the signal path cases against `next start`. */
export function nextSignalPaths(task: string): { name: string; path: string }[] {
  return [
    ["encoded slash id", `/api/v1/tasks/a%2Fb/signals/approved`],
    ["encoded NUL id", `/api/v1/tasks/%00/signals/approved`],
    ["encoded NUL name", `/api/v1/tasks/${task}/signals/%00`],
    ["lone percent name", `/api/v1/tasks/${task}/signals/%`],
    ["malformed UTF-8 id", `/api/v1/tasks/%C0%AF%FF/signals/approved`],
    ["bidi name", `/api/v1/tasks/${task}/signals/%E2%80%AE`],
    ["long id", `/api/v1/tasks/${"9".repeat(8_000)}/signals/approved`],
    ["dot-dot", `/api/v1/tasks/${task}/signals/%2E%2E`],
  ].map(([name, path]) => ({ name: name as string, path: path as string }));
}

export const AUTH_BODY_CAP = 65_536; // lib/server/auth-route.ts AUTH_BODY_LIMIT_BYTES

export type SignInCase = {
  name: string;
  /** Form fields (a string[] value is sent as the key repeated) or a raw body. */
  fields?: Record<string, string | string[]>;
  raw?: string | Uint8Array;
  contentType?: string | null;
  /** Send the csrf cookie (default) or not. */
  cookie?: boolean;
  chunked?: boolean;
};

/** Password sign-ins; `csrfToken` and `email` are the run's. */
export function signInCases(f: { email: string; csrfToken: string }): SignInCase[] {
  const valid: Record<string, string> = { email: f.email, password: "wrong-password-1", csrfToken: f.csrfToken, json: "true" };
  const cases: SignInCase[] = [];
  const values: [string, string][] = [
    ...HOSTILE_TEXT,
    ["over-long email", `${"e".repeat(320)}@x.test`],
    ["over-long password", "p".repeat(201)],
    ["whitespace email", `  ${f.email.toUpperCase()}  `],
  ];
  for (const key of ["email", "password", "csrfToken"]) {
    const { [key]: _dropped, ...rest } = valid;
    cases.push({ name: `sign-in: without ${key}`, fields: rest });
    for (const [name, value] of values) cases.push({ name: `sign-in: ${key} = ${name}`, fields: { ...valid, [key]: value } });
    cases.push({ name: `sign-in: ${key} as array`, fields: { ...valid, [key]: [valid[key] as string, "other"] } });
    cases.push({ name: `sign-in: ${key}[] bracket array`, fields: { ...valid, [`${key}[]`]: ["a", "b"] } });
  }
  const form = new URLSearchParams(valid).toString();
  cases.push({ name: "sign-in: no csrf cookie", fields: valid, cookie: false });
  cases.push({ name: "sign-in: JSON body", raw: JSON.stringify(valid), contentType: "application/json" });
  cases.push({
    name: "sign-in: JSON with NUL",
    raw: JSON.stringify({ ...valid, email: "a\u0000@x.test" }),
    contentType: "application/json",
  });
  cases.push({ name: "sign-in: invalid JSON", raw: "{", contentType: "application/json" });
  cases.push({ name: "sign-in: JSON array", raw: "[1,2]", contentType: "application/json" });
  cases.push({ name: "sign-in: raw NUL byte", raw: new Uint8Array([0x65, 0x3d, 0x00]) });
  cases.push({
    name: "sign-in: JSON arrays and objects",
    raw: JSON.stringify({ ...valid, email: [f.email], password: { $ne: "" } }),
    contentType: "application/json",
  });
  for (const type of [
    null,
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded; charset=latin1",
  ]) {
    cases.push({ name: `sign-in: content-type ${JSON.stringify(type)}`, raw: form, contentType: type });
  }
  cases.push({ name: "sign-in: non-UTF-8 bytes", raw: NON_UTF8 });
  cases.push({ name: "sign-in: bad percent-encoding", raw: `${form}&email=%ZZ%E0%A4%A` });
  cases.push({ name: "sign-in: oversized body", raw: `${form}&pad=${"p".repeat(AUTH_BODY_CAP)}` });
  cases.push({
    name: "sign-in: chunked over the cap",
    raw: `${form}&pad=${"p".repeat(AUTH_BODY_CAP)}`,
    chunked: true,
  });
  cases.push({
    name: "sign-in: many parameters",
    raw: `${form}&${Array.from({ length: 3_000 }, (_, i) => `p${i}=1`).join("&")}`,
  });
  return cases;
}

/** The task list's filter parameters (lib/ui/presenters/task-list.ts) and the audit trail's (lib/ui/presenters/audit.ts). */
export const TASK_FILTERS = ["input", "q", "tool", "status", "answered", "from", "to", "tenant", "cursor"] as const;
export const AUDIT_FILTERS = ["actor", "action", "tenant", "from", "to", "cursor"] as const;

/** One query string per (filter, hostile value), plus malformed whole queries; `filters` names the parameters. */
export function consoleFilterQueries(filters: readonly string[], label: string): { name: string; query: string }[] {
  const cases: { name: string; query: string }[] = [];
  for (const filter of filters) {
    for (const [name, value] of [
      ...HOSTILE_TEXT,
      ["raw NUL", "\u0000"],
      ["quoted NUL", `a="\u0000"`],
      ["escaped NUL text", 'a="\\u0000"'],
    ] as [string, string][]) {
      cases.push({ name: `${label}: ${filter} = ${name}`, query: new URLSearchParams({ [filter]: value }).toString() });
    }
    cases.push({ name: `${label}: ${filter} repeated`, query: `${filter}=a&${filter}=b` });
  }
  for (const [name, query] of [
    ["bad percent-encoding", "actor=%ZZ%E0%A4%A&input=%"],
    ["percent NUL", "actor=%00&input=a%3D%22%00%22&q=%00"],
    ["many parameters", Array.from({ length: 2_000 }, (_, i) => `p${i}=1`).join("&")],
  ]) {
    cases.push({ name: `${label}: ${name}`, query: query as string });
  }
  return cases;
}

/** Unusual methods on every kind of path (review F11: TRACE answered 500 everywhere). */
export function methodCases(): RawRequest[] {
  const cases: RawRequest[] = [];
  for (const method of ["TRACE", "TRACK", "PROPFIND", "PATCH", "PUT", "DELETE", "OPTIONS"]) {
    for (const path of [
      "/login",
      "/overview",
      "/login/csrf",
      "/api/v1/tasks/x/signals/y",
      "/api/mcp",
      "/api/health",
      "/oauth/authorize",
    ]) {
      cases.push({ name: `method: ${method} ${path}`, method: method as RawRequest["method"], path });
    }
  }
  return cases;
}

/** The login page's CSRF cookie route with hostile queries and cookies (it forwards its query to /login). */
export function loginCsrfCases(): RawRequest[] {
  const cases: RawRequest[] = [];
  for (const [name, value] of HOSTILE_TEXT) {
    cases.push({
      name: `login/csrf: callbackUrl = ${name}`,
      method: "GET",
      path: `/login/csrf?${new URLSearchParams({ callbackUrl: value })}`,
    });
  }
  cases.push({
    name: "login/csrf: garbage cookie",
    method: "GET",
    path: "/login/csrf",
    headers: { cookie: "next-auth.csrf-token=%ZZ%00" },
  });
  cases.push({ name: "login/csrf: csrf=issued loop marker", method: "GET", path: "/login?csrf=issued" });
  cases.push({
    name: "login: hostile error code",
    method: "GET",
    path: `/login?error=${encodeURIComponent("<script>x</script>")}`,
  });
  return cases;
}
