// Queues fed by online evaluation rules (docs/annotation-queues.md#online-rules): each score a
// named rule stores (`evaluation-rule:scored`, published when its job ends DONE) adds the scored
// target to the project's queues naming the rule, when the queue's condition holds. On PostgreSQL
// every instance receives the event; the items' unique key makes the adds one.
import type { FastifyBaseLogger } from 'fastify';
import type { RuleScored } from '../online-evaluation/progress.js';
import { requestContext, type Services } from '../shared/context.js';
import { follow } from '../shared/events.js';
import { FAILED_BELOW, type RuleCondition } from './inputs.js';
import { insertItems, ruleIdsOf } from './operations.js';

/** Whether a score adds its target under the queue's condition. */
export function scoreFeeds(condition: RuleCondition, scored: Pick<RuleScored, 'value' | 'dataType'>): boolean {
  if (condition === 'all') return true;
  return scored.dataType === 'BOOLEAN' ? scored.value === 0 : scored.value < FAILED_BELOW;
}

/** Adds the scored target to each queue of its project that names the rule; answers how many items were new. */
export async function addScoredTarget(services: Services, scored: RuleScored): Promise<number> {
  const ctx = requestContext(services, scored.projectId);
  // A project has few queues: they are read whole and the rule looked for in their JSON lists.
  const queues = await ctx.db.annotationQueue.findMany({
    where: { projectId: scored.projectId, targetType: scored.target },
    select: { id: true, ruleIds: true, ruleCondition: true },
  });
  let added = 0;
  for (const queue of queues) {
    if (!ruleIdsOf(queue).includes(scored.ruleId) || !scoreFeeds(queue.ruleCondition as RuleCondition, scored)) continue;
    added += await insertItems(ctx, queue.id, [{ target_id: scored.targetId, trace_id: scored.traceId }]);
  }
  return added;
}

/** Follows the rules' scores from now on; answers the stop. */
export function followRuleScores(services: Services, log: FastifyBaseLogger): () => void {
  return follow(services.events, 'evaluation-rule:scored', (scored) => {
    addScoredTarget(services, scored).catch((error: unknown) =>
      log.error({ err: error, ruleId: scored.ruleId }, 'adding a scored target to its queues failed'),
    );
  });
}
