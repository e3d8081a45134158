import net from "node:net";
import { createRegistry, createWorker, defineWorkflow, silentLogger } from "@runifold/sdk";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { waitFor } from "../helpers/wait-for";
import { engineStore } from "./support/harness";

/**
 * A claim that never answers must not stop a worker claiming (issue 36 CI: the primary-failover test
 * stalled with runs left). postgres.js can leave a query on a connection killed under it unsettled for
 * ever; here a TCP proxy between the worker's lease pool and PostgreSQL stops forwarding the bytes of
 * the connections it holds — a black hole, as a dead host without a reset is — while new connections
 * pass. The worker bounds each claim by its lease and claims again on another connection.
 */
const store = engineStore();
const LEASE_MS = 1_000;

type Pair = { client: net.Socket; upstream: net.Socket };

/** A forwarding proxy whose open connections can be frozen (no byte passes either way, none closed). */
async function blackHoleProxy(target: { host: string; port: number }) {
  const pairs: Pair[] = [];
  const sockets: net.Socket[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    sockets.push(client, upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", closeBoth);
    upstream.on("error", closeBoth);
    pairs.push({ client, upstream });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze() {
      for (const { client, upstream } of pairs.splice(0)) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    /** Ends every connection, frozen or not, and stops listening. */
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const quick = defineWorkflow({
  name: "claim-bound-quick",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.step("only", () => 1);
    return { content: [] };
  },
});

let lease: postgres.Sql | undefined;
let proxy: Awaited<ReturnType<typeof blackHoleProxy>> | undefined;
afterAll(async () => {
  // The frozen connections first: a pool's end waits on a query that will never answer.
  await proxy?.close();
  await lease?.end({ timeout: 1 }).catch(() => {});
});

describe("a claim that never answers", () => {
  it("is given up after the lease it asks for, and the worker claims again on another connection", async () => {
    const url = new URL(store.url);
    proxy = await blackHoleProxy({ host: url.hostname, port: Number(url.port || 5432) });
    const proxied = new URL(store.url);
    proxied.port = String(proxy.port);
    lease = postgres(proxied.toString(), { max: 2, onnotice: () => {} });
    const worker = createWorker({
      sql: store.sql,
      leaseSql: lease,
      registry: createRegistry([quick]),
      logger: silentLogger,
      leaseMs: LEASE_MS,
      pollMs: 50,
    });
    await worker.start();
    try {
      const status = (id: string) => () => store.run(id);
      const first = await store.create(quick, {});
      await waitFor(status(first.id), (row) => row?.status === "completed", { describe: "the first run to complete" });
      // Every lease connection open now stops answering; the next claim is sent on one of them.
      proxy.freeze();
      const second = await store.create(quick, {});
      const done = await waitFor(status(second.id), (row) => row?.status === "completed", {
        describe: "the run created after the freeze to complete",
        timeoutMs: 15_000,
      });
      expect(done?.status).toBe("completed");
    } finally {
      await worker.stop(500);
    }
  });
});
