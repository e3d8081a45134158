import { describe, expect, it } from "vitest";
import { parseInputFilter } from "./input-filter";

const clauses = (text: string) => {
  const parsed = parseInputFilter(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.clauses;
};
const error = (text: string) => {
  const parsed = parseInputFilter(text);
  return parsed.ok ? undefined : parsed.error;
};

describe("the task list's input filter language", () => {
  it("parses numbers, bare and quoted strings, booleans and dotted paths, joined with and", () => {
    expect(clauses("amount > 100")).toEqual([{ path: ["amount"], op: ">", value: { kind: "number", text: "100" } }]);
    expect(clauses("expense_id = E-1")).toEqual([{ path: ["expense_id"], op: "=", value: { kind: "string", value: "E-1" } }]);
    expect(clauses(`amount>=10.5 AND meta.region != "eu west" and urgent = true and n < -2e3`)).toEqual([
      { path: ["amount"], op: ">=", value: { kind: "number", text: "10.5" } },
      { path: ["meta", "region"], op: "!=", value: { kind: "string", value: "eu west" } },
      { path: ["urgent"], op: "=", value: { kind: "boolean", value: true } },
      { path: ["n"], op: "<", value: { kind: "number", text: "-2e3" } },
    ]);
    // A quoted number stays a string: the operator chooses the JSON type it compares with.
    expect(clauses(`code = '100'`)[0]?.value).toEqual({ kind: "string", value: "100" });
    expect(clauses("   ")).toEqual([]);
  });

  it("refuses malformed filters with a message that says what was expected", () => {
    expect(error("amount >")).toBe("expected a value after >");
    expect(error("amount 100")).toBe('expected an operator (= != > >= < <=) after "amount"');
    expect(error("amount")).toBe('expected an operator (= != > >= < <=) after "amount"');
    expect(error("> 100")).toBe("expected a field name at character 1");
    expect(error("1amount = 2")).toMatch(/^"1amount" is not a field name/);
    expect(error("a..b = 2")).toMatch(/is not a field name/);
    expect(error("amount > 1 or amount < 0")).toBe('expected "and" before "or" (only "and" joins conditions)');
    expect(error("amount > 1 and")).toBe('expected a condition after "and"');
    expect(error(`name = "unclosed`)).toBe("unclosed quote starting at character 8");
    expect(error("urgent > true")).toBe("true and false compare only with = or != (got >)");
    expect(error("a = 1e999")).toBe("number 1e999 is out of range");
    expect(error(`${"a.".repeat(8)}b = 1`)).toMatch(/nested deeper than 8 levels/);
    expect(error(Array.from({ length: 11 }, (_, i) => `f${i} = 1`).join(" and "))).toBe("at most 10 conditions");
    expect(error(`a = "${"x".repeat(600)}"`)).toMatch(/longer than 500 characters/);
  });

  it("keeps SQL-looking input as data or refuses it; nothing is a keyword but and", () => {
    expect(error("amount = 1;DROP")).toBe('value "1;DROP" needs quotes');
    expect(error("input->>'x' = 1")).toMatch(/is not a field name/);
    expect(clauses(`name = "x' OR '1'='1"`)[0]?.value).toEqual({ kind: "string", value: "x' OR '1'='1" });
    expect(error("a = 1 -- comment")).toBe('expected "and" before "--" (only "and" joins conditions)');
  });
});
