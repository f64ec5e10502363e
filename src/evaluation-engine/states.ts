// The states both kinds of evaluation share (docs/evaluations.md#status-and-its-transitions,
// docs/human-evaluations.md#output-generation-and-status): one column type, one list of the states
// the engine (as a job kind's runnable statuses), a cancel or a restart acts on.
import type { EvaluationStatus } from '../generated/prisma/client.js';

/** Still to run or running. */
export const UNFINISHED: EvaluationStatus[] = ['EVALUATION_INITIALIZED', 'EVALUATION_STARTED'];

export function isUnfinished(status: string): boolean {
  return (UNFINISHED as string[]).includes(status);
}
