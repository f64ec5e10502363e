// Plans online evaluation jobs after spans are committed (docs/online-evaluation.md#jobs). The
// ingestion writer tells the planner which traces it stored and goes on at once: the planner
// gathers the trace ids per project and plans them one project at a time, apart from ingestion,
// so rules never slow or refuse it. A failed planning is logged, never thrown back to ingestion.
// What a process that died before planning left is planned by the sweeps every instance makes
// over the traces of the last minutes (at start, then every SWEEP_INTERVAL_MS).
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../shared/context.js';
import { ProjectQueue } from '../shared/project-queue.js';
import { type PlanSettings, planJobs, sweepJobs } from './operations.js';

/** How often each instance sweeps, and the window it looks back over (twice that: no gap between sweeps). */
export const SWEEP_INTERVAL_MS = 5 * 60_000;

export class JobPlanner {
  private readonly queue: ProjectQueue;
  private sweeping: Promise<void> | null = null;
  private sweepTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly services: Services,
    private readonly settings: PlanSettings,
    private readonly log: FastifyBaseLogger,
  ) {
    this.queue = new ProjectQueue((projectId, traceIds) => planJobs(services, projectId, traceIds, settings), log, 'planning online evaluation jobs failed');
  }

  /** Ingestion's hook (Services.tracesStoredHooks): remembers the traces and returns. */
  readonly notify = (projectId: string, traceIds: string[]): void => this.queue.notify(projectId, traceIds);

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

  /** Plans what was told already, then stops listening and sweeping. */
  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.queue.stop();
    await this.sweeping;
    this.stopped = true;
  }
}
