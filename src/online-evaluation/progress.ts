// A rule's progress for GraphQL subscriptions (docs/online-evaluation.md#graphql): what changes a
// rule's jobs or backfills publishes `evaluation-rule:progress` with the rule's id (planning,
// a job's start and end, a backfill's pages, start and end, the rule's own changes); a stream
// answers the rule as it is now, then the rule read again after each burst of changes, so one
// read serves however many jobs ended meanwhile.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError } from '../shared/errors.js';
import { endingWith, type AssayEvents } from '../shared/events.js';

type RuleRow = Prisma.EvaluationRuleGetPayload<object>;

declare module '../shared/events.js' {
  interface AssayTopics {
    /** Jobs or backfills of this rule, or the rule itself, changed (the time, for the record). */
    'evaluation-rule:progress': [ruleId: string, at: number];
    /** A job of a rule ended DONE with a score (annotation queues fed by rules follow it). */
    'evaluation-rule:scored': [scored: RuleScored];
  }
}

/** What a job that ended with a score tells its followers (docs/online-evaluation.md#jobs). */
export interface RuleScored {
  projectId: string;
  ruleId: string;
  target: 'trace' | 'span' | 'session';
  /** The trace, the span (with its trace id) or the session scored. */
  targetId: string;
  traceId: string | null;
  value: number;
  dataType: 'BOOLEAN' | 'NUMERIC';
}

export function publishRuleScored(events: AssayEvents, scored: RuleScored): void {
  events.publish('evaluation-rule:scored', scored);
}

/** The shortest time between two answers of a stream: a burst of job ends is read once. */
export const PROGRESS_INTERVAL_MS = 500;

export function publishRuleProgress(events: AssayEvents, ruleId: string): void {
  events.publish('evaluation-rule:progress', ruleId, Date.now());
}

/**
 * The rule now (a NotFoundError for an unknown one), then again after each change, at most every
 * `intervalMs`; it ends once the rule is deleted. The events are taken as they come (a flag, not
 * a queue), so a slow client never piles them up, and closing the stream stops it at once even
 * while it waits for the next change.
 */
export function ruleProgressStream(ctx: RequestContext, ruleId: string, intervalMs = PROGRESS_INTERVAL_MS): AsyncIterableIterator<RuleRow> {
  // Subscribed before the first read, so no change falls between the read and the subscription.
  const updates = ctx.events.subscribe('evaluation-rule:progress', ruleId)[Symbol.asyncIterator]();
  let changed = false;
  let open = true;
  let wake: (() => void) | null = null;
  const woken = () => {
    wake?.();
    wake = null;
  };
  void (async () => {
    for (;;) {
      const next = await updates.next();
      if (next.done) break;
      changed = true;
      woken();
    }
    open = false;
    woken();
  })();

  const read = () => ctx.db.evaluationRule.findFirst({ where: { id: ruleId, projectId: ctx.projectId } });
  async function* stream(): AsyncGenerator<RuleRow> {
    try {
      const first = await read();
      if (!first) throw new NotFoundError('EvaluationRule', ruleId);
      yield first;
      while (open) {
        if (!changed) await new Promise<void>((resolve) => (wake = resolve));
        if (!open) return;
        await sleep(intervalMs);
        changed = false;
        const rule = await read();
        if (!rule) return;
        yield rule;
      }
    } finally {
      await updates.return?.();
    }
  }
  // Ending the subscription wakes a stream waiting for a change, which then returns.
  return endingWith(updates, stream());
}
