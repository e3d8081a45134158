import { LinkedTasks } from "./linked-tasks";

/**
 * "Compensates …" / "Compensated in …": a cancelled run's onFailure compensation runs and the run a
 * compensation run compensates (lib/tasks/queries/child-links.ts; docs/authoring.md "Compensation").
 */
export function CompensationLinks({
  compensatesTaskId,
  compensationTaskIds,
}: {
  compensatesTaskId: string | null;
  compensationTaskIds: string[];
}) {
  return (
    <LinkedTasks
      one={{ label: "Compensates", testId: "compensates", id: compensatesTaskId }}
      many={{ label: "Compensated in", testId: "compensated-in", ids: compensationTaskIds }}
    />
  );
}
