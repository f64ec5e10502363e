// Which jobs of a kind run, and when (docs/evaluation-engine.md): scan for rows that need work and
// nobody holds, take them with a lease (leases.ts), run up to `concurrency` at once, keep the lease
// while working, give it back after. A run aborts when its lease is lost or its row stops being
// runnable (a cancel, sent to any instance), and when the process stops; either way the row is
// resumed by the next scan that finds its lease expired, here, in another instance or after a
// restart. What a run does is the engine's (engine.ts).
import { setMaxListeners } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../shared/context.js';
import { follow } from '../shared/events.js';
import type { EvaluationKind } from '../shared/metrics.js';
import { JobFailure, type JobError } from './job-kind.js';
import { LeaseLost, type Leases } from './leases.js';

export interface SchedulerSettings {
  leaseMs: number;
  /** Jobs run at once by this process. */
  concurrency: number;
}

/** What the scheduler runs: the work of one job, and how a job that threw is marked failed. */
export interface ScheduledWork {
  /** Throws to fail the job (a JobFailure for a fault the user can act on). */
  work(id: string, signal: AbortSignal): Promise<void>;
  fail(id: string, error: JobError): Promise<void>;
}

export class JobScheduler {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly unsubscribes: (() => void)[] = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private scanning = false;
  private rescan = false;
  private stopped = false;

  constructor(
    private readonly kind: EvaluationKind,
    private readonly events: Services['events'],
    private readonly leases: Leases,
    private readonly settings: SchedulerSettings,
    private readonly log: FastifyBaseLogger,
    private readonly jobs: ScheduledWork,
  ) {}

  /** Jobs this process is working on now. */
  get runningJobs(): number {
    return this.running.size;
  }

  start(): void {
    this.unsubscribes.push(
      follow(this.events, 'jobs:created', (kind) => {
        if (kind === this.kind) this.wake();
      }),
      follow(this.events, 'job:stopped', (id) => this.abort(id)),
      // Other instances' events may have been lost: look for work now rather than at the next poll.
      follow(this.events, 'events:missed', () => this.wake()),
    );
    // Picks up jobs whose worker died (expired leases), here or in another process.
    this.pollTimer = setInterval(() => void this.scan(), Math.max(250, this.settings.leaseMs / 2));
    this.pollTimer.unref();
    void this.scan();
  }

  /** Stops taking work, aborts the jobs under way (they resume at the next start) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    const runs = [...this.running.values()];
    for (const run of runs) run.controller.abort();
    await Promise.allSettled(runs.map((run) => run.done));
  }

  private wake(): void {
    void this.scan();
  }

  private abort(id: string): void {
    this.running.get(id)?.controller.abort();
  }

  private async scan(): Promise<void> {
    if (this.stopped) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = true;
    try {
      do {
        this.rescan = false;
        const ids = await this.leases.claim(this.settings.concurrency - this.running.size, [...this.running.keys()]);
        for (const id of ids) {
          if (this.stopped) await this.leases.release(id);
          else this.launch(id);
        }
      } while (this.rescan && !this.stopped);
    } catch (error) {
      this.log.error({ err: error }, 'job scan failed');
    } finally {
      this.scanning = false;
    }
  }

  private launch(id: string): void {
    const controller = new AbortController();
    // Every call of a batch may listen to the job's signal (batches of up to 1,000).
    setMaxListeners(0, controller.signal);
    const done = this.run(id, controller)
      .catch((error: unknown) => this.log.error({ err: error, id }, 'job failed to record its end'))
      .finally(() => {
        this.running.delete(id);
        void this.scan();
      });
    this.running.set(id, { controller, done });
  }

  private async run(id: string, controller: AbortController): Promise<void> {
    const stopKeeping = this.leases.keep(id, controller);
    try {
      await this.jobs.work(id, controller.signal);
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof LeaseLost) {
        // Another worker runs it now (this one paused past its lease): nothing of this run was kept.
        this.log.warn({ id }, error.message);
        return;
      }
      const failure = error instanceof JobFailure;
      await this.jobs.fail(id, {
        message: failure ? error.message : `The job stopped on an internal error: ${(error as Error).message}`,
        stacktrace: failure ? null : ((error as Error).stack ?? null),
      });
    } finally {
      stopKeeping();
      await this.leases.release(id).catch(() => undefined);
    }
  }
}
