// What bench/mcp-http.ts hands bench/procs/http-load.ts (as JSON in BENCH_HTTP_SPEC): the contract between the two processes.

/** One request autocannon repeats: an MCP POST (tests/helpers/mcp-envelope.ts) or the bare GET. */
export type LoadRequest = { method: string; headers: Record<string, string>; body: string };

export type HttpLoadSpec = {
  url: string;
  connections: number;
  seconds: number;
  requests: LoadRequest[];
  /**
   * Give each request a JSON-RPC id of its own (a counter in the load process): a server that keeps
   * sessions maps answers to requests by id, so the same id in flight twice on one session collides.
   */
  freshIds?: boolean;
  /**
   * Before and after the load, the first request must answer a JSON-RPC result with a task status
   * ("task-status", tasks/get) or a CreateTaskResult ("task-created", tools/call with `task`).
   */
  check?: "task-status" | "task-created";
};
