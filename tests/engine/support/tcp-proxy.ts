import net from "node:net";

/**
 * A TCP proxy in front of Postgres that can partition the network: while partitioned, bytes stop
 * flowing both ways but no connection is closed — the worker's queries hang, as they do when a
 * switch or a security group drops packets (no error, no reset).
 */
export async function startTcpProxy(target: { host: string; port: number }) {
  const pairs: { client: net.Socket; upstream: net.Socket }[] = [];
  let partitioned = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.push(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    if (partitioned) pause(pair);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", close);
    upstream.on("error", close);
    client.on("close", close);
    upstream.on("close", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const pause = (pair: { client: net.Socket; upstream: net.Socket }) => {
    pair.client.pause();
    pair.upstream.pause();
  };
  return {
    port,
    partition() {
      partitioned = true;
      for (const pair of pairs) pause(pair);
    },
    heal() {
      partitioned = false;
      for (const pair of pairs) {
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
