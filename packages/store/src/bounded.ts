/**
 * `promise`, or a rejection after `ms`. For queries that must not hold their caller for ever:
 * postgres.js (3.4.9) can leave a query on a connection that closed under it unsettled for good
 * (porsager/postgres #1154), and while no host of a multi-host URL answers a query waits instead of
 * failing. The query itself is not cancelled; only the caller moves on.
 */
export function bounded<T>(promise: Promise<T>, ms: number, what = "query"): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
