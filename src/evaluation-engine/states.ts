// The states both kinds of evaluation share (docs/evaluations.md#status-and-its-transitions,
// docs/human-evaluations.md#output-generation-and-status): one column type, one list of the states
// the engine (EVALUATION_JOB_STATES), a cancel or a restart acts on.
import type { EvaluationStatus } from '../generated/prisma/client.js';
import type { JobStates } from './job-kind.js';

/** Still to run or running. */
export const UNFINISHED: EvaluationStatus[] = ['EVALUATION_INITIALIZED', 'EVALUATION_STARTED'];

/** An evaluation job's states as the engine acts on them (JobKind.states): both kinds of evaluation share them. */
export const EVALUATION_JOB_STATES = { runnable: UNFINISHED, started: 'EVALUATION_STARTED', failed: 'EVALUATION_FAILED' } as const satisfies JobStates;

export function isUnfinished(status: string): boolean {
  return (UNFINISHED as string[]).includes(status);
}
