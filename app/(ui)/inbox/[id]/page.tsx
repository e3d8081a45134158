import Link from "next/link";
import { deniedPage, pageOperator } from "@/lib/ui/page-operator";
import { presentTaskInbox } from "@/lib/ui/presenters/task-inbox";
import { Card, Empty, PageHeader } from "../../_components/ui";
import { InputForm } from "../input-form";

export const dynamic = "force-dynamic";

// The inbox form of one task: the link a `task.input_required` webhook carries (docs/webhooks.md),
// so a person goes from the notification straight to the question.
export default async function TaskInboxPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { operator, ctx } = await pageOperator();
  const view = await presentTaskInbox(ctx.sql, operator, id);
  if (!view) return deniedPage(ctx, "page:/inbox/{id}", { taskId: id });
  return (
    <>
      <PageHeader
        title="Answer a task"
        description={`${view.workflow} · task ${view.taskId.slice(0, 8)}`}
        actions={
          <Link href={`/tasks/${view.taskId}`} className="text-sm text-indigo-700 hover:underline">
            Task details →
          </Link>
        }
      />
      {view.items.length === 0 ? (
        <Empty>
          Nothing is waiting for input on this task (it is {view.status.replace("_", " ")}).{" "}
          <Link href="/inbox" className="text-indigo-700 hover:underline">
            Back to the inbox
          </Link>
        </Empty>
      ) : (
        <ul className="grid gap-4 lg:grid-cols-2">
          {view.items.map((item) => (
            <li key={item.key} data-task-id={view.taskId}>
              <Card>
                <p className="mb-1 text-xs text-slate-500">
                  input <code>{item.key}</code>
                </p>
                <InputForm taskId={view.taskId} inputKey={item.key} message={item.message} fields={item.fields} />
              </Card>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
