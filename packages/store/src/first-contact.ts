import type { Sql } from "./client";

/**
 * A process's first query, bounded. postgres.js keeps cycling through a multi-host URL's hosts for
 * as long as none of them answers (3.4.x: a query waits, it never rejects) — right while a failover
 * promotes a standby, wrong at start-up, where a wrong URL must end the process with a message instead
 * of a silent hang. One connect timeout per host (`connectTimeoutSeconds`, as the pool was given),
 * and the first query's own rejection (a refused single host, a bad password) passes through.
 */
export async function firstContact(sql: Sql, hosts: number, connectTimeoutSeconds: number): Promise<void> {
  const limitMs = Math.max(1, hosts) * connectTimeoutSeconds * 1_000 + 1_000;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no host answered as a writable primary within ${Math.round(limitMs / 1_000)} s`)),
      limitMs,
    );
  });
  try {
    await Promise.race([sql`SELECT 1`, expired]);
  } finally {
    clearTimeout(timer);
  }
}
