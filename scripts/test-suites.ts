/**
 * Extra suites `npm test` runs after the built-in ones (scripts/test-all.ts), each as one process
 * against a live stack of its own (scripts/with-stack.ts): it receives RUNIFOLD_TEST_URL and
 * BASE_URL (the app's origin) and DATABASE_URL (its migrated, seeded database) on top of `env`.
 * A suite that prints a final `N passed, N failed` line contributes those counts; otherwise its
 * exit code counts as one pass or one failure.
 */
export type TestSuite = { name: string; command: string; args: string[]; env?: Record<string, string> };

export const extraSuites: TestSuite[] = [];
