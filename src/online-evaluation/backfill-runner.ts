// Backfills as a kind of the evaluation engine (docs/online-evaluation.md#backfills): a backfill's
// row is held with a lease; its cases are pages of the time range's traces after the stored cursor,
// each page's jobs planned and the cursor moved in one fenced transaction, so a backfill stopped by
// a restart or another instance's death goes on after the last page it stored and never plans a
// target twice (a target's job is unique per rule version). Cancelling ends it between pages.
import { type Ending, type FencedWrite, JobFailure, type JobDb, type JobKind, type Planned } from '../evaluation-engine/job-kind.js';
import { type RequestContext, type Services, requestContext } from '../shared/context.js';
import { BACKFILL_WAITING, type BackfillRow, backfillPage, backfillTargets, countBackfillTraces, storeBackfillPage } from './backfills.js';
import type { PlanSettings, PlannedTarget, RuleRow } from './operations.js';
import { publishRuleProgress } from './progress.js';

interface Plan {
  ctx: RequestContext;
  backfill: BackfillRow;
  rule: RuleRow;
}

interface Page {
  traceIds: string[];
  cursor: string;
}

interface PageOutcome {
  targets: PlannedTarget[];
  cursor: string;
}

export class BackfillJobs implements JobKind<BackfillRow, Plan, Page, PageOutcome> {
  readonly name = 'online-evaluation-backfill' as const;
  readonly table = 'EvaluationRuleBackfill';
  readonly states = { runnable: BACKFILL_WAITING, started: 'RUNNING', failed: 'ERROR' } as const;
  readonly progress = { publish: false };

  constructor(
    private readonly services: Services,
    private readonly settings: PlanSettings,
  ) {}

  model(db: JobDb) {
    return db.evaluationRuleBackfill;
  }

  load(id: string): Promise<BackfillRow | null> {
    return this.services.db.evaluationRuleBackfill.findUnique({ where: { id } });
  }

  async plan(backfill: BackfillRow): Promise<Planned<Plan>> {
    const ctx = requestContext(this.services, backfill.projectId);
    const rule = await ctx.db.evaluationRule.findUnique({ where: { id: backfill.ruleId } });
    if (!rule) throw new JobFailure('The rule was deleted');
    // The total is counted once, when the backfill first starts: a resumed one keeps it.
    const start = backfill.cursor === null ? { total: await countBackfillTraces(ctx, rule, backfill) } : {};
    return { plan: { ctx, backfill, rule }, limits: { batchSize: 1, delayMs: 0, retries: 0, retryDelayMs: 0 }, start };
  }

  async *pending(plan: Plan): AsyncGenerator<Page> {
    let cursor = plan.backfill.cursor;
    // The targets counted against the limit, as stored (a page behind at most: the store slices the last one).
    while (
      (await this.services.db.evaluationRuleBackfill.findUniqueOrThrow({ where: { id: plan.backfill.id }, select: { seen: true } })).seen < plan.backfill.limit
    ) {
      const page = await backfillPage(plan.ctx, plan.rule, plan.backfill, cursor);
      if (page.length === 0) return;
      cursor = page[page.length - 1].cursor;
      yield { traceIds: page.map((row) => row.traceId), cursor };
    }
  }

  async runCase(plan: Plan, page: Page): Promise<PageOutcome> {
    return { targets: await backfillTargets(plan.ctx, plan.rule, page.traceIds), cursor: page.cursor };
  }

  async store(plan: Plan, outcomes: PageOutcome[], fenced: FencedWrite): Promise<void> {
    let written = 0;
    await fenced(async (tx) => {
      for (const outcome of outcomes) written += await storeBackfillPage(plan.ctx, tx, plan.rule, plan.backfill, outcome, this.settings);
      return { written, errors: 0 };
    });
    if (written > 0) this.services.events.publish('jobs:created', 'online-evaluation');
    publishRuleProgress(this.services.events, plan.rule.id);
  }

  finish(): Promise<Ending> {
    return Promise.resolve({ status: 'DONE', error: null });
  }

  ended() {
    return { finishedAt: new Date() };
  }

  changed(id: string, plan: Plan | null): void {
    if (plan) return publishRuleProgress(this.services.events, plan.rule.id);
    this.services.db.evaluationRuleBackfill
      .findUnique({ where: { id }, select: { ruleId: true } })
      .then((backfill) => backfill && publishRuleProgress(this.services.events, backfill.ruleId))
      .then(undefined, () => undefined);
  }
}
