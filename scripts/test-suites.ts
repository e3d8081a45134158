/**
 * Extra suites `npm test` runs against the same live e2e stack as Playwright (after it), each as one
 * process. Each receives RUNIFOLD_TEST_URL (the app's origin) and DATABASE_URL (its migrated,
 * seeded database) on top of `env`. A suite that prints a final `N passed, N failed` line
 * contributes those counts; otherwise its exit code counts as one pass or one failure.
 * (The MCP conformance suite has its own step in scripts/test-all.ts: it needs a second web process.)
 */
export type TestSuite = { name: string; command: string; args: string[]; env?: Record<string, string> };

export const extraSuites: TestSuite[] = [];
