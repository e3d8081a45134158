import { LinkedTasks } from "./linked-tasks";

/** "Rerun of …" / "Rerun as …": the links the two runs' histories record (lib/tasks/rerun-task.ts). */
export function RerunLinks({ rerunOf, rerunAs }: { rerunOf: string | null; rerunAs: string[] }) {
  return (
    <LinkedTasks
      one={{ label: "Rerun of", testId: "rerun-of", id: rerunOf }}
      many={{ label: "Rerun as", testId: "rerun-as", ids: rerunAs }}
    />
  );
}
