import Link from "next/link";
import { deniedPage, pageOperator } from "@/lib/ui/page-operator";
import { presentTaskInbox } from "@/lib/ui/presenters/task-inbox";
import { Card, Empty, PageHeader } from "../../../_components/ui";
import { InputForm } from "../../input-form";

export const dynamic = "force-dynamic";

// One question of one task: the stable page a URL-mode elicitation points at
// (`<public URL>/inbox/<task>/<key>`, lib/mcp/url-input.ts). The person who opens it signs in (the
// link carries no credential); a task outside their tenants answers exactly like an unknown one.
// The form posts like the inbox's (answerInputForm) and works without scripts; the MCP call that
// sent the link is waiting and completes once the answer is in.
export default async function TaskQuestionPage({ params }: { params: Promise<{ id: string; key: string }> }) {
  const { id, key: rawKey } = await params;
  const { operator, ctx } = await pageOperator();
  const view = await presentTaskInbox(ctx.sql, operator, id);
  if (!view) return deniedPage(ctx, "page:/inbox/{id}/{key}", { taskId: id });
  // The key as the client was sent it (percent-encoded); either spelling names the same question.
  const item = view.items.find((entry) => entry.key === rawKey || entry.key === decoded(rawKey));
  return (
    <>
      <PageHeader
        title="Answer a question"
        description={`${view.workflow} · task ${view.taskId.slice(0, 8)}`}
        actions={
          <Link href={`/tasks/${view.taskId}`} className="text-sm text-indigo-700 hover:underline">
            Task details →
          </Link>
        }
      />
      {item ? (
        <div className="max-w-xl" data-task-id={view.taskId} data-input-key={item.key}>
          <Card>
            <p className="mb-1 text-xs text-slate-500">
              input <code>{item.key}</code>
            </p>
            <InputForm taskId={view.taskId} inputKey={item.key} message={item.message} fields={item.fields} />
          </Card>
        </div>
      ) : (
        <Empty>
          This question is not waiting for an answer (it was answered, or the task is {view.status.replace("_", " ")}).{" "}
          <Link href={`/inbox/${view.taskId}`} className="text-indigo-700 hover:underline">
            The task's open questions
          </Link>
        </Empty>
      )}
    </>
  );
}

function decoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
