import { LinkedTasks } from "./linked-tasks";

/** "Child of …" / "Children …": the tasks ctx.child linked to this one (lib/tasks/queries/child-links.ts). */
export function ChildLinks({ parentTaskId, childTaskIds }: { parentTaskId: string | null; childTaskIds: string[] }) {
  return (
    <LinkedTasks
      one={{ label: "Child of", testId: "child-of", id: parentTaskId }}
      many={{ label: "Children", testId: "children", ids: childTaskIds }}
    />
  );
}
