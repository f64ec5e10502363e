// In-process events: operations wake the evaluation runner through them, and GraphQL
// subscriptions stream them to clients (Yoga's pub/sub, which speaks SSE).
import { createPubSub } from 'graphql-yoga';

export interface EvaluationProgress {
  evaluation_id: string;
  status: string;
  total: number;
  done: number;
  errors: number;
}

/** The kinds of durable background jobs (see job-runner.ts). */
export type JobKind = 'evaluation' | 'human-evaluation';

export type AssayEvents = ReturnType<typeof createAssayEvents>;

export function createAssayEvents() {
  return createPubSub<{
    /** New jobs of this kind wait to be run (or were set to run again). */
    'jobs:created': [kind: JobKind];
    /** This job was cancelled, stopped or deleted: stop its work now. */
    'job:stopped': [id: string];
    'evaluation:progress': [evaluationId: string, progress: EvaluationProgress];
    /** Spans of these traces were committed in this project (the trace list's live updates). */
    'traces:stored': [projectId: string, traceIds: string[]];
  }>();
}
