import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GOALS, goalNamed } from "./goals";

export type Figure = {
  name: string;
  value: number | null;
  unit: string;
  target?: string;
  met?: boolean;
  note?: string;
  /** True for the figures of bench/lib/goals.ts. */
  goal?: boolean;
  /** Set when the figure could not be measured (value null, met false). */
  missing?: boolean;
};

/**
 * Collects every figure of one run: each is printed as one line when recorded and the whole run
 * (settings, figures, extra detail such as EXPLAIN output) is written to bench/results/latest.json.
 */
export class Report {
  readonly figures: Figure[] = [];
  readonly settings: Record<string, unknown> = {};
  readonly detail: Record<string, unknown> = {};
  readonly startedAt = new Date().toISOString();

  setting(key: string, value: unknown) {
    this.settings[key] = value;
    process.stdout.write(`setting ${key}: ${typeof value === "string" ? value : JSON.stringify(value)}\n`);
  }

  figure(name: string, value: number, unit: string, extra: Omit<Figure, "name" | "value" | "unit"> = {}) {
    // A NaN (e.g. a ratio over a failed measurement) is not a value: JSON would silently write null.
    if (!Number.isFinite(value)) {
      const why = `not measured: a figure it is computed from is missing or failed${extra.note ? ` (${extra.note})` : ""}`;
      return this.missing(name, unit, why, extra);
    }
    const figure: Figure = { name, value, unit, ...extra };
    this.figures.push(figure);
    const target = extra.target ? `  (target ${extra.target}: ${extra.met ? "met" : "MISSED"})` : "";
    const note = extra.note ? `  [${extra.note}]` : "";
    process.stdout.write(`${name}: ${value} ${unit}${target}${note}\n`);
    return figure;
  }

  /** A figure with a target `value <= limit` or `value >= limit`. */
  target(name: string, value: number, unit: string, op: "<=" | ">=", limit: number, note?: string) {
    const met = op === "<=" ? value <= limit : value >= limit;
    return this.figure(name, value, unit, { target: `${op} ${limit}`, met, ...(note ? { note } : {}) });
  }

  /** A figure of the goals table (bench/lib/goals.ts): its target comes from there. */
  goal(name: string, value: number, note?: string) {
    const g = goalNamed(name);
    const met = g.op === "<=" ? value <= g.limit : value >= g.limit;
    return this.figure(name, value, g.unit, { target: `${g.op} ${g.limit}`, met, goal: true, ...(note ? { note } : {}) });
  }

  /** Records that a figure could not be measured, so it is visibly absent rather than silently so. */
  missing(name: string, unit: string, why: string, extra: Omit<Figure, "name" | "value" | "unit"> = {}) {
    const figure: Figure = { name, value: null, unit, ...extra, met: false, missing: true, note: why };
    this.figures.push(figure);
    process.stdout.write(`${name}: MISSING ${unit}${extra.target ? `  (target ${extra.target}: MISSED)` : ""}  [${why}]\n`);
    return figure;
  }

  /** Every goal without a figure yet becomes a missing one, naming why (failed or skipped section). */
  completeGoals(why: (section: string) => string) {
    for (const g of GOALS) {
      if (this.figures.some((f) => f.name === g.name)) continue;
      this.missing(g.name, g.unit, why(g.section), { target: `${g.op} ${g.limit}`, goal: true });
    }
  }

  attach(key: string, value: unknown) {
    this.detail[key] = value;
  }

  /** Writes the run to bench/results/`name` (latest.json for a run of every section). */
  write(root: string, name = "latest.json") {
    const dir = path.join(root, "bench", "results");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, name);
    const goals = GOALS.map((g) => {
      const f = this.figures.find((x) => x.name === g.name);
      return { ...g, value: f?.value ?? null, met: f?.met ?? false, note: f?.note, missing: !f || f.missing === true };
    });
    const body = {
      startedAt: this.startedAt,
      finishedAt: new Date().toISOString(),
      settings: this.settings,
      goals,
      figures: this.figures,
      detail: this.detail,
    };
    writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
    return file;
  }
}
