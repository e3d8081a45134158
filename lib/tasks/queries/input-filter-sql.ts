import type { FilterClause } from "../input-filter";

/**
 * Compiles parsed input-filter clauses to SQL conditions over `r.input`. Every path and value is a
 * bound parameter (`p` pushes it and returns `$n`); only the operator, chosen from a closed set,
 * becomes SQL text.
 * - `=` is containment, `r.input @> $json`, served by the runs_input_path_idx GIN (jsonb_path_ops)
 *   index: the common case ("expense_id = E-1") is index-backed. JSON numbers compare by value.
 * - `!=` needs the field present and different (a run without the field does not match).
 * - `< <= > >=` compare numbers numerically and strings as text (byte order); a value of the other
 *   JSON type never matches. CASE (not AND) guards the cast: Postgres does not promise AND's order,
 *   and casting a string like "abc" to numeric would fail the whole query.
 */
export function inputFilterConditions(clauses: FilterClause[], p: (value: unknown) => string): string[] {
  return clauses.map((clause) => {
    if (clause.op === "=" || clause.op === "!=") {
      // ::text first: a bare ::jsonb parameter would make postgres.js JSON-encode the string a second time.
      const contains = `r.input @> ${p(JSON.stringify(nest(clause)))}::text::jsonb`;
      return clause.op === "=" ? contains : `(r.input #> ${p(clause.path)}::text[] IS NOT NULL AND NOT ${contains})`;
    }
    const path = p(clause.path);
    if (clause.value.kind === "number")
      return `(CASE WHEN jsonb_typeof(r.input #> ${path}::text[]) = 'number'
               THEN (r.input #>> ${path}::text[])::numeric ${clause.op} ${p(clause.value.text)}::numeric ELSE false END)`;
    const text = clause.value.kind === "string" ? clause.value.value : String(clause.value.value);
    return `(CASE WHEN jsonb_typeof(r.input #> ${path}::text[]) = 'string'
             THEN (r.input #>> ${path}::text[]) COLLATE "C" ${clause.op} ${p(text)}::text ELSE false END)`;
  });
}

/** `a.b = 1` → {"a":{"b":1}}, the document containment looks for. */
function nest(clause: FilterClause): unknown {
  const value = clause.value;
  let doc: unknown = value.kind === "number" ? Number(value.text) : value.value;
  for (const name of [...clause.path].reverse()) doc = { [name]: doc };
  return doc;
}

/**
 * Runs that have an input answered by `who`: an actor label as run_inputs.answered_by stores it
 * (`operator:<id>`, `cli:me@host`, `timeout`, a key's actor), or an operator's email, matched to
 * its `operator:<id>`. Served by run_inputs' primary key (run_id first) per candidate run.
 */
export function answeredByCondition(who: string, p: (value: unknown) => string): string {
  const label = p(who);
  return `EXISTS (SELECT 1 FROM run_inputs ai WHERE ai.run_id = r.id AND ai.answered_by IS NOT NULL AND (
            ai.answered_by = ${label}
            OR ai.answered_by IN (SELECT 'operator:' || o.id FROM operators o WHERE o.email = lower(${label}))))`;
}
