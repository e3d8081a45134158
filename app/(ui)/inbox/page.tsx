import Link from "next/link";
import { pageOperator } from "@/lib/ui/page-operator";
import { presentInbox } from "@/lib/ui/presenters/inbox";
import { AutoRefresh } from "../_components/auto-refresh";
import { Card, Empty, PageHeader, Time } from "../_components/ui";
import { InputForm } from "./input-form";

export const dynamic = "force-dynamic";

export default async function InboxPage() {
  const { operator, ctx } = await pageOperator();
  const items = await presentInbox(ctx.sql, operator);
  return (
    <>
      <AutoRefresh seconds={15} />
      <PageHeader
        title="Inbox"
        description="Tasks waiting for a person. Your answer goes to the task exactly as an MCP client's would."
      />
      {items.length === 0 ? (
        <Empty>Nothing is waiting for input.</Empty>
      ) : (
        <ul className="grid gap-4 lg:grid-cols-2">
          {items.map((item) => (
            <li key={`${item.taskId}/${item.key}`} data-task-id={item.taskId}>
              <Card>
                <div className="mb-2 flex flex-wrap items-baseline justify-between gap-2 text-sm">
                  <span className="font-medium text-slate-800">{item.route}</span>
                  <span className="text-xs text-slate-500">
                    asked <Time iso={item.requestedAt} />
                  </span>
                </div>
                <p className="mb-1 text-xs text-slate-500">
                  Task{" "}
                  <Link href={`/tasks/${item.taskId}`} className="font-mono text-indigo-700 hover:underline">
                    {item.taskId.slice(0, 8)}
                  </Link>{" "}
                  · input <code>{item.key}</code>
                </p>
                <InputForm taskId={item.taskId} inputKey={item.key} message={item.message} fields={item.fields} />
              </Card>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
