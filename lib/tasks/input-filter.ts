/**
 * The task list's input filter: a tiny language over a run's JSON input, e.g.
 * `amount > 100`, `expense_id = E-1`, `amount >= 10 and meta.region != "eu west"`.
 *
 *   filter := clause ("and" clause)*
 *   clause := path op value
 *   path   := name ("." name)*          name: [A-Za-z_][A-Za-z0-9_]*
 *   op     := = | != | > | >= | < | <=
 *   value  := number | true | false | "quoted" | 'quoted' | bare word ([A-Za-z0-9_.:@+-]+)
 *
 * Hand-written rather than a parser library: the grammar is seven tokens, and owning it keeps every
 * error message specific ("expected a value after >"). The parser only produces data; the SQL side
 * (queries/input-filter-sql.ts) binds every path and value as a parameter, never as SQL text.
 */

export type FilterOp = "=" | "!=" | ">" | ">=" | "<" | "<=";
export type FilterValue =
  | { kind: "number"; text: string }
  | { kind: "string"; value: string }
  | { kind: "boolean"; value: boolean };
export type FilterClause = { path: string[]; op: FilterOp; value: FilterValue };

export type ParsedFilter = { ok: true; clauses: FilterClause[] } | { ok: false; error: string };

const MAX_LENGTH = 500;
const MAX_CLAUSES = 10;
const MAX_DEPTH = 8;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const BARE = /^[A-Za-z0-9_.:@+-]+$/;

type Token = { kind: "word" | "op" | "quoted"; text: string; at: number };

function tokenize(source: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const end = source.indexOf(ch, i + 1);
      if (end < 0) return `unclosed quote starting at character ${i + 1}`;
      tokens.push({ kind: "quoted", text: source.slice(i + 1, end), at: i });
      i = end + 1;
      continue;
    }
    const op = /^(?:!=|>=|<=|=|>|<)/.exec(source.slice(i))?.[0];
    if (op) {
      tokens.push({ kind: "op", text: op, at: i });
      i += op.length;
      continue;
    }
    const word = /^[^\s"'=!<>]+/.exec(source.slice(i))?.[0];
    if (!word) return `unexpected "${ch}" at character ${i + 1}`;
    tokens.push({ kind: "word", text: word, at: i });
    i += word.length;
  }
  return tokens;
}

function parsePath(token: Token | undefined): string[] | string {
  if (token?.kind !== "word") return token ? `expected a field name at character ${token.at + 1}` : "expected a field name";
  const path = token.text.split(".");
  if (path.length > MAX_DEPTH) return `field "${token.text}" is nested deeper than ${MAX_DEPTH} levels`;
  if (!path.every((name) => NAME.test(name)))
    return `"${token.text}" is not a field name (letters, digits and _, not starting with a digit; dots for nested fields)`;
  return path;
}

function parseValue(token: Token | undefined, op: string): FilterValue | string {
  if (!token || token.kind === "op") return `expected a value after ${op}`;
  if (token.kind === "quoted") return { kind: "string", value: token.text };
  if (token.text === "true" || token.text === "false") return { kind: "boolean", value: token.text === "true" };
  if (NUMBER.test(token.text)) {
    if (!Number.isFinite(Number(token.text))) return `number ${token.text} is out of range`;
    return { kind: "number", text: token.text };
  }
  if (!BARE.test(token.text)) return `value "${token.text}" needs quotes`;
  return { kind: "string", value: token.text };
}

/** Parses a filter; an empty one is no filter (no clauses). Errors name what was expected, and where. */
export function parseInputFilter(source: string): ParsedFilter {
  const text = source.trim();
  if (text.length > MAX_LENGTH) return { ok: false, error: `the filter is longer than ${MAX_LENGTH} characters` };
  const tokens = tokenize(text);
  if (typeof tokens === "string") return { ok: false, error: tokens };
  const clauses: FilterClause[] = [];
  let i = 0;
  while (i < tokens.length) {
    if (clauses.length > 0) {
      const joiner = tokens[i] as Token;
      if (joiner.kind !== "word" || joiner.text.toLowerCase() !== "and")
        return { ok: false, error: `expected "and" before "${joiner.text}" (only "and" joins conditions)` };
      i++;
      if (i === tokens.length) return { ok: false, error: 'expected a condition after "and"' };
    }
    if (clauses.length === MAX_CLAUSES) return { ok: false, error: `at most ${MAX_CLAUSES} conditions` };
    const path = parsePath(tokens[i]);
    if (typeof path === "string") return { ok: false, error: path };
    const opToken = tokens[i + 1];
    if (opToken?.kind !== "op") return { ok: false, error: `expected an operator (= != > >= < <=) after "${path.join(".")}"` };
    const op = opToken.text as FilterOp;
    const value = parseValue(tokens[i + 2], op);
    if (typeof value === "string") return { ok: false, error: value };
    if (value.kind === "boolean" && op !== "=" && op !== "!=")
      return { ok: false, error: `true and false compare only with = or != (got ${op})` };
    clauses.push({ path, op, value });
    i += 3;
  }
  return { ok: true, clauses };
}
