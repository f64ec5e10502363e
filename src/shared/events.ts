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

export type AssayEvents = ReturnType<typeof createAssayEvents>;

export function createAssayEvents() {
  return createPubSub<{
    /** New evaluations wait to be run. */
    'evaluations:created': [];
    /** A user cancelled this evaluation: stop its work now. */
    'evaluation:cancelled': [evaluationId: string];
    'evaluation:progress': [evaluationId: string, progress: EvaluationProgress];
  }>();
}
