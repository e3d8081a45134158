// The load process for bench/listen-scale.ts: on the modern (2026-07-28) wire it creates long-running
// tasks (slow_compute parked on an hour's durable timer), opens BENCH_PER_TASK subscriptions/listen
// streams per task and holds them all, reads the web process tree's RSS (BENCH_WEB_PID) before and
// after, then cancels a sample of tasks one at a time and times cancel → notifications/tasks
// "cancelled" at that task's streams, counting how many of them got it. The bench database's
// committed transactions (pg_stat_database) are read around an idle hold and around the changes,
// to show the statements per change do not grow with the streams. Writes BENCH_RESULT_FILE.

import { cancelRunAsAdmin } from "@runifold/sdk";
import postgres from "postgres";
import { modernRequest, TASKS_ONLY } from "../../tests/helpers/mcp-envelope";
import { sseMessages } from "../../tests/helpers/sse";
import { treeCpuMs } from "../lib/cpu";
import { treeRssKb } from "../lib/proc-memory";
import { inParallel, waitFor } from "../lib/procs";
import { writeFailure, writeResult } from "../lib/result-file";

const url = process.env.BENCH_MCP_URL ?? "";
const tokens = (process.env.BENCH_TOKENS ?? "").split(",").filter(Boolean);
const tasksPerKey = Number(process.env.BENCH_TASKS_PER_KEY ?? 20);
const perTask = Number(process.env.BENCH_PER_TASK ?? 5);
const changes = Number(process.env.BENCH_CHANGES ?? 30);
const webPid = Number(process.env.BENCH_WEB_PID);
/**
 * The idle hold over which what holding the streams costs is measured, and (unless BENCH_AFTER_MS)
 * the wait after the changes: pg_stat_database is flushed by each backend when idle, at least once
 * per 10 s (PGSTAT_IDLE_INTERVAL), so the full run waits 11 s.
 */
const idleMs = Number(process.env.BENCH_IDLE_MS ?? 11_000);
const OPEN_CONCURRENCY = 64;

type Stream = { taskId: string; status: number; snapshotAt: number; cancelledAt: number; ended: boolean; abort: AbortController };

async function call(token: string, method: string, params: Record<string, unknown>) {
  const response = await fetch(url, modernRequest(method, params, { token, capabilities: TASKS_ONLY }));
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: { message: string } };
  if (response.status >= 400 || body.error) throw new Error(`${method}: ${response.status} ${body.error?.message ?? ""}`);
  return body.result ?? {};
}

/** Reads one stream's SSE messages (tests/helpers/sse.ts) until it ends, stamping the first snapshot and the first "cancelled". */
async function read(stream: Stream, response: Response) {
  try {
    for await (const message of sseMessages(response) as AsyncGenerator<{ method?: string; params?: { status?: string } }>) {
      if (message.method !== "notifications/tasks") continue;
      const now = performance.now();
      if (message.params?.status === "cancelled") stream.cancelledAt ||= now;
      else stream.snapshotAt ||= now;
    }
  } catch {
    // aborted at the end of the run, or the server dropped it: `ended` says so either way
  } finally {
    stream.ended = true;
  }
}

async function open(token: string, taskId: string): Promise<Stream> {
  const abort = new AbortController();
  const stream: Stream = { taskId, status: 0, snapshotAt: 0, cancelledAt: 0, ended: false, abort };
  const request = modernRequest(
    "subscriptions/listen",
    { notifications: { taskIds: [taskId] } },
    { token, capabilities: TASKS_ONLY },
  );
  try {
    const response = await fetch(url, { ...request, signal: abort.signal });
    stream.status = response.status;
    if (response.status !== 200 || !response.body) {
      stream.ended = true;
      await response.body?.cancel();
    } else void read(stream, response);
  } catch {
    stream.ended = true;
  }
  return stream;
}

const sql = postgres(process.env.DATABASE_URL ?? "", { max: 2, onnotice: () => {} });
const commits = async () =>
  Number((await sql`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`)[0]?.n);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

try {
  // 1. Long-running tasks, each bound to the key that created it (a key may only listen to its own).
  const owned: { token: string; taskId: string }[] = [];
  await inParallel(tokens.length * tasksPerKey, 8, async (i) => {
    const token = tokens[i % tokens.length] as string;
    const result = await call(token, "tools/call", { name: "slow_compute", arguments: { seconds: 3_600 } });
    owned.push({ token, taskId: result.taskId as string });
  });
  const ids = owned.map((o) => o.taskId);
  // Every run has taken its first step and parked on its timer: nothing else moves during the holds.
  await waitFor(
    async () =>
      Number((await sql`SELECT count(*) AS n FROM runs WHERE id = ANY(${ids}) AND status IN ('queued', 'leased')`)[0]?.n) === 0,
    120_000,
    "the tasks to park",
    200,
  );
  await sleep(1_000);
  const rssBefore = treeRssKb(webPid);

  // 2. Open every stream and wait for every snapshot.
  const openStarted = performance.now();
  const streams: Stream[] = [];
  const plan = owned.flatMap((o) => Array.from({ length: perTask }, () => o));
  await inParallel(plan.length, OPEN_CONCURRENCY, async (i) => {
    const o = plan[i] as (typeof plan)[number];
    streams.push(await open(o.token, o.taskId));
  });
  const refused = streams.filter((s) => s.status !== 200);
  await waitFor(() => streams.every((s) => s.snapshotAt > 0 || s.ended), 120_000, "every stream's snapshot", 50).catch(
    () => undefined,
  );
  const openMs = performance.now() - openStarted;
  const withSnapshot = streams.filter((s) => s.snapshotAt > 0 && !s.ended).length;

  // 3. An idle hold: memory with every stream open, and what holding them costs per second.
  await sleep(2_000);
  const idleCommits0 = await commits();
  const idleCpu0 = treeCpuMs(webPid);
  const idleStarted = performance.now();
  await sleep(idleMs);
  const idleSeconds = (performance.now() - idleStarted) / 1000;
  const idleCommits = (await commits()) - idleCommits0;
  const idleCpuMs = treeCpuMs(webPid) - idleCpu0;
  const rssAfter = treeRssKb(webPid);

  // 4. State changes one at a time, every stream still open.
  const byTask = new Map<string, Stream[]>();
  for (const s of streams) byTask.set(s.taskId, [...(byTask.get(s.taskId) ?? []), s]);
  const step = Math.max(1, Math.floor(ids.length / changes));
  const sample = ids.filter((_, i) => i % step === 0).slice(0, changes);
  const first: number[] = [];
  const last: number[] = [];
  const fromCommit: number[] = [];
  const delivered: number[] = [];
  const changeCommits0 = await commits();
  const changesStarted = performance.now();
  for (const taskId of sample) {
    const mine = byTask.get(taskId) ?? [];
    const t0 = performance.now();
    await cancelRunAsAdmin(sql, { runId: taskId, reason: "bench listen-scale" });
    const committed = performance.now();
    await waitFor(() => mine.every((s) => s.cancelledAt > 0 || s.ended), 10_000, "the cancel notification", 1).catch(
      () => undefined,
    );
    const got = mine.filter((s) => s.cancelledAt > 0).map((s) => s.cancelledAt);
    delivered.push(got.length);
    if (got.length) {
      first.push(Math.min(...got) - t0);
      last.push(Math.max(...got) - t0);
      fromCommit.push(Math.min(...got) - committed);
    }
    await sleep(20); // let the web's reads of this change finish before the next one
  }
  const changesSeconds = (performance.now() - changesStarted) / 1000;
  await sleep(Number(process.env.BENCH_AFTER_MS ?? idleMs));
  const changeWindow = (performance.now() - changesStarted) / 1000;
  const changeCommits = (await commits()) - changeCommits0;
  const stillOpen = streams.filter((s) => !s.ended).length;
  for (const s of streams) s.abort.abort();

  writeResult({
    streams: streams.length,
    refused: refused.length,
    refusedStatuses: [...new Set(refused.map((s) => s.status))],
    withSnapshot,
    stillOpen,
    openMs,
    rssBeforeKb: rssBefore,
    rssAfterKb: rssAfter,
    idle: { seconds: idleSeconds, commits: idleCommits, webCpuMs: idleCpuMs },
    changes: {
      count: sample.length,
      seconds: changesSeconds,
      window: changeWindow,
      commits: changeCommits,
      first,
      last,
      fromCommit,
      delivered,
    },
  });
} catch (error) {
  writeFailure(error);
  process.exitCode = 1;
} finally {
  await sql.end();
  process.exit();
}
