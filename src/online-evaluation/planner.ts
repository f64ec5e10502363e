// Plans online evaluation jobs after spans are committed (docs/online-evaluation.md#jobs). The
// ingestion writer tells the planner which traces it stored and goes on at once: the planner
// gathers the trace ids per project and, once ingestion is quiet (or has held it MAX_HOLD_MS),
// plans all that gathered in one read and one insert for all the project's rules, apart from
// ingestion, so rules never slow or refuse it. A failed planning is logged, never thrown back to
// ingestion. The enabled rules are read once per project and kept until a rule changes
// (`evaluation-rules:changed`, from every instance). What a process that died before planning
// left is planned by the sweeps every instance makes over the traces of the last minutes (at
// start, then every SWEEP_INTERVAL_MS).
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../shared/context.js';
import { follow } from '../shared/events.js';
import { ProjectQueue } from '../shared/project-queue.js';
import { type PlanSettings, type RuleRow, enabledRules, planJobs, sweepJobs } from './operations.js';

/** How often each instance sweeps, and the window it looks back over (twice that: no gap between sweeps). */
export const SWEEP_INTERVAL_MS = 5 * 60_000;

/** How long ingestion must have been quiet before planning (as before jobs start, runner.ts). */
const INGEST_QUIET_MS = 250;

/** The longest planning waits for ingestion: under endless ingestion it plans this often, each time all that gathered. */
const MAX_HOLD_MS = 5_000;

export class JobPlanner {
  private readonly queue: ProjectQueue;
  private readonly rules = new Map<string, Promise<RuleRow[]>>();
  private readonly unfollow: (() => void)[];
  private sweeping: Promise<void> | null = null;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private stopped = false;

  constructor(
    private readonly services: Services,
    private readonly settings: PlanSettings,
    private readonly log: FastifyBaseLogger,
  ) {
    this.queue = new ProjectQueue(
      async (projectId, traceIds) => planJobs(services, projectId, await this.enabledRules(projectId), traceIds, settings),
      log,
      'planning online evaluation jobs failed',
      () => this.ingestionQuiet(),
    );
    this.unfollow = [
      follow(services.events, 'evaluation-rules:changed', (projectId) => this.rules.delete(projectId)),
      // Another instance's change may have been missed: read every project's rules again.
      follow(services.events, 'events:missed', () => this.rules.clear()),
    ];
  }

  /** Ingestion's hook (Services.tracesStoredHooks): remembers the traces and returns. */
  readonly notify = (projectId: string, traceIds: string[]): void => this.queue.notify(projectId, traceIds);

  /** The project's enabled rules, read once and kept until one of its rules changes. */
  private enabledRules(projectId: string): Promise<RuleRow[]> {
    let rules = this.rules.get(projectId);
    if (!rules) {
      rules = enabledRules(this.services.db, projectId);
      this.rules.set(projectId, rules);
      rules.catch(() => this.rules.get(projectId) === rules && this.rules.delete(projectId));
    }
    return rules;
  }

  /**
   * Resolves once no span has been written for INGEST_QUIET_MS, or after MAX_HOLD_MS: planning
   * takes no CPU or write turn from the writer, and the batches told meanwhile are planned together.
   */
  private async ingestionQuiet(): Promise<void> {
    const start = Date.now();
    for (;;) {
      const idle = this.services.spanQueue.idleMs;
      if (this.stopping || idle >= INGEST_QUIET_MS || Date.now() - start >= MAX_HOLD_MS) return;
      await sleep(INGEST_QUIET_MS - idle);
    }
  }

  /** Sweeps now and every SWEEP_INTERVAL_MS. */
  start(): void {
    const sweep = () => {
      if (this.stopped || this.sweeping) return;
      this.sweeping = sweepJobs(this.services, new Date(Date.now() - 2 * SWEEP_INTERVAL_MS), this.settings)
        .then(
          () => undefined,
          (error: unknown) => this.log.error({ err: error }, 'sweeping online evaluation jobs failed'),
        )
        .finally(() => (this.sweeping = null));
    };
    this.sweepTimer = setInterval(sweep, SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    sweep();
  }

  /** Plans what was told already (without waiting for ingestion), then stops listening and sweeping. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    await this.queue.stop();
    await this.sweeping;
    for (const stop of this.unfollow) stop();
    this.stopped = true;
  }
}
