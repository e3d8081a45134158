import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export type Figure = { name: string; value: number; unit: string; target?: string; met?: boolean; note?: string };

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
    const figure = { name, value, unit, ...extra };
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

  attach(key: string, value: unknown) {
    this.detail[key] = value;
  }

  write(root: string) {
    const dir = path.join(root, "bench", "results");
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, "latest.json");
    const body = {
      startedAt: this.startedAt,
      finishedAt: new Date().toISOString(),
      settings: this.settings,
      figures: this.figures,
      detail: this.detail,
    };
    writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
    return file;
  }
}
