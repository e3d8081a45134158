export default function Home() {
  return (
    <main className="mx-auto flex max-w-2xl flex-col gap-6 px-6 py-16">
      <header className="flex flex-col gap-2">
        <h1 className="text-3xl font-semibold tracking-tight">Runifold</h1>
        <p className="text-slate-600">Durable workflows exposed through MCP Tasks, backed by Postgres.</p>
      </header>
      <section className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm">
        <h2 className="text-sm font-medium uppercase tracking-wide text-slate-500">Status</h2>
        <p className="mt-2 text-slate-700">Database, migrations and online workers are reported by the health endpoint.</p>
        <a
          href="/api/health"
          className="mt-4 inline-block rounded-md bg-indigo-600 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          View /api/health
        </a>
        <a
          href="/overview"
          className="mt-4 ml-3 inline-block rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-medium text-slate-700 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
        >
          Operator console
        </a>
      </section>
    </main>
  );
}
