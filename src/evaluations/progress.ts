// A stream of an evaluation's progress for GraphQL subscriptions: its current state first, then
// every change, ending once the evaluation has ended.
import type { RequestContext } from '../shared/context.js';
import { type EvaluationProgress, progressOf } from '../evaluation-engine/events.js';
import { isUnfinished } from '../evaluation-engine/states.js';
import { endingWith } from '../shared/events.js';
import { getEvaluation } from './operations.js';

function ended(progress: EvaluationProgress): boolean {
  return !isUnfinished(progress.status);
}

export function progressStream(ctx: RequestContext, evaluationId: string): AsyncIterableIterator<EvaluationProgress> {
  // Subscribe before reading, so no change falls between the read and the subscription.
  const updates = ctx.events.subscribe('evaluation:progress', evaluationId)[Symbol.asyncIterator]();
  async function* stream(): AsyncGenerator<EvaluationProgress> {
    try {
      const current = progressOf(await getEvaluation(ctx, evaluationId, { select: { id: true, status: true, total: true, done: true, errors: true } }));
      yield current;
      if (ended(current)) return;
      for (;;) {
        const next = await updates.next();
        if (next.done) return;
        yield next.value;
        if (ended(next.value)) return;
      }
    } finally {
      await updates.return?.();
    }
  }
  return endingWith(updates, stream());
}
