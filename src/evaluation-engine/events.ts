// The engine's events (docs/evaluation-engine.md#progress-and-events), declared here on the
// service's event bus (shared/events.ts) as `Services` is augmented
// (docs/architecture.md#state-lives-in-services): operations wake the engine with `jobs:created`
// and stop a run with `job:stopped`; the engine streams a run's progress as `evaluation:progress`
// to GraphQL subscriptions.
import type { EvaluationKind } from '../shared/metrics.js';

/** A run's status and counts, as `evaluation:progress` events and GraphQL's `EvaluationProgress` carry them. */
export interface EvaluationProgress {
  evaluation_id: string;
  status: string;
  total: number;
  done: number;
  errors: number;
}

declare module '../shared/events.js' {
  interface AssayTopics {
    /** New jobs of this kind wait to be run (or were set to run again). */
    'jobs:created': [kind: EvaluationKind];
    /** This job was cancelled, stopped or deleted: stop its work now. */
    'job:stopped': [id: string];
    'evaluation:progress': [evaluationId: string, progress: EvaluationProgress];
  }
}

/** The columns of a job's row its progress is read from. */
export const PROGRESS_FIELDS = { id: true, status: true, total: true, done: true, errors: true } as const;

export function progressOf(job: { id: string; status: string; total: number; done: number; errors: number }): EvaluationProgress {
  return { evaluation_id: job.id, status: job.status, total: job.total, done: job.done, errors: job.errors };
}
