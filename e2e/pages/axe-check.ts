import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/** What one axe rule found, in a form a failing assertion can print. */
export type AxeFinding = { rule: string; impact: string; help: string; targets: string[] };

/**
 * The `serious` and `critical` axe findings on the page as it is now (WCAG 2.x A/AA rules). Minor
 * and moderate ones are left out: the acceptance bar is "no serious violations".
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? "",
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    }));
}
