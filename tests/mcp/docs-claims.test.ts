import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_ACTIVE_TASKS_PER_KEY } from "../../lib/tasks";
import { ROOT } from "../helpers/processes";

/**
 * review3-mcp D14 (issue 29 item 5): the MCP docs said things the code does not do. Each claim that
 * was wrong is pinned to what the code does (the behaviour itself is tested where it lives).
 */
const doc = (name: string) => readFileSync(path.join(ROOT, "docs", name), "utf8");

describe("the MCP docs say what the code does", () => {
  it("mcp-legacy.md states the per-credential cap on live tasks (lib/tasks/active-task-cap.ts), not 'not limited'", () => {
    const text = doc("mcp-legacy.md");
    expect(text).not.toContain("not limited yet");
    expect(text).toContain(`RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY\` (default ${DEFAULT_MAX_ACTIVE_TASKS_PER_KEY})`);
  });

  it("mcp-legacy.md does not say a re-opened stream repeats progress (mcp_progress_marks: rising across streams)", () => {
    const text = doc("mcp-legacy.md");
    expect(text).not.toContain("re-sends the current progress value once");
    expect(text).toContain("the high-water mark above is per task, across");
  });

  it("clients.md says what a client without tasks or elicitation gets in each era: a handle, or -32021 where handles are off", () => {
    const text = doc("clients.md");
    expect(text).not.toContain("a question is answered in the console inbox (or the CLI) and the call continues");
    expect(text).toMatch(/no tasks, no elicitation[^\n]*task handle/);
    expect(text).toMatch(/-32021/);
  });
});
