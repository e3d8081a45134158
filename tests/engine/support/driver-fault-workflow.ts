import { createRegistry, defineWorkflow } from "@runifold/sdk";
import postgres from "postgres";
import { z } from "zod";

let faulted = false;

/**
 * store-refusals.test.ts: on its first execution in a process, step `a` schedules a timer that
 * throws inside postgres.js (an invalid type parser makes the driver's own code throw), in the
 * attempt's async context — the shape of the driver's throw from `nextWrite` on a connection killed
 * under it, which a primary failover produced. The step then waits until its attempt is stopped.
 */
export const driverThrows = defineWorkflow({
  name: "driver-throws",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    const pid = await ctx.step("a", async ({ signal }) => {
      if (faulted) return process.pid;
      faulted = true;
      setImmediate(() => postgres("postgres://127.0.0.1:1/none", { types: { broken: null } as never }));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 30_000);
        signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
      return process.pid;
    });
    return { content: [], structuredContent: { pid } };
  },
});

export const driverFaultRegistry = createRegistry([driverThrows]);
