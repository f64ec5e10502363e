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

/**
 * Adds the scored targets to each queue of their project that names their rule: one read of the
 * queues per project and target type, one insert per queue. Answers how many items were new.
 */
export async function addScoredTargets(services: Services, scores: readonly RuleScored[]): Promise<number> {
  const groups = new Map<string, RuleScored[]>();
  for (const scored of scores) {
    const key = `${scored.projectId}\u0000${scored.target}`;
    const group = groups.get(key);
    if (group) group.push(scored);
    else groups.set(key, [scored]);
  }
  let added = 0;
  for (const group of groups.values()) {
    const { projectId, target } = group[0];
    const ctx = requestContext(services, projectId);
    // A project has few queues: they are read whole and the rule looked for in their JSON lists.
    const queues = await ctx.db.annotationQueue.findMany({
      where: { projectId, targetType: target },
      select: { id: true, ruleIds: true, ruleCondition: true },
    });
    for (const queue of queues) {
      const ruleIds = ruleIdsOf(queue);
      const fed = group.filter((scored) => ruleIds.includes(scored.ruleId) && scoreFeeds(queue.ruleCondition as RuleCondition, scored));
      if (fed.length > 0)
        added += await insertItems(
          ctx,
          queue.id,
          fed.map((scored) => ({ target_id: scored.targetId, trace_id: scored.traceId })),
        );
    }
  }
  return added;
}

/**
 * Follows the rules' scores from now on; answers the stop. The scores told in one turn of the
 * event loop (a stored group of jobs tells its scores together) are added together.
 */
export function followRuleScores(services: Services, log: FastifyBaseLogger): () => void {
  let waiting: RuleScored[] = [];
  return follow(services.events, 'evaluation-rule:scored', (scored) => {
    waiting.push(scored);
    if (waiting.length > 1) return;
    setImmediate(() => {
      const scores = waiting;
      waiting = [];
      addScoredTargets(services, scores).catch((error: unknown) =>
        log.error({ err: error, ruleIds: [...new Set(scores.map((item) => item.ruleId))] }, 'adding scored targets to their queues failed'),
      );
    });
  });
}
