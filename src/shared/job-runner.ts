// The loop every durable background job shares (automatic and human evaluations): scan for rows
// that need work and nobody holds, take them with a lease (leases.ts), run up to `concurrency` at
// once, keep the lease while working, give it back after. A run aborts when its lease is lost or
// its row stops being runnable (a cancel, sent to any instance), and when the process stops;
// either way the row is resumed by the next scan that finds its lease expired, here, in another
// instance or after a restart.
import { setMaxListeners } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from './context.js';
import { follow, type JobKind } from './events.js';
import { type LeaseDelegate, LeaseLost, Leases } from './leases.js';

export interface JobRunnerSettings {
  leaseMs: number;
  /** Jobs run at once by this process. */
  concurrency: number;
}

/** A failure a user can act on: the job ends failed with this message and no stack. */
export class JobFailure extends Error {}

export interface JobError {
  message: string;
  stacktrace: string | null;
}

export abstract class LeasedJobRunner {
  protected readonly leases: Leases;
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private readonly unsubscribes: (() => void)[] = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private scanning = false;
  private rescan = false;
  private stopped = false;

  private readonly events: Services['events'];

  /** `delegate` and `table`: the jobs' model (`db.evaluation`, "Evaluation"); `statuses`: those of jobs that still need work. */
  constructor(
    private readonly kind: JobKind,
    services: Pick<Services, 'events' | 'db' | 'sql'>,
    delegate: LeaseDelegate,
    table: string,
    statuses: readonly string[],
    owner: string,
    protected readonly settings: JobRunnerSettings,
    protected readonly log: FastifyBaseLogger,
  ) {
    this.events = services.events;
    this.leases = new Leases(delegate, services.db, services.sql, { owner, leaseMs: settings.leaseMs, table, statuses });
  }

  /** Jobs this process is working on now. */
  get runningJobs(): number {
    return this.running.size;
  }

  /** The work of one job; throws to fail it (a JobFailure for a fault the user can act on). */
  protected abstract work(id: string, signal: AbortSignal): Promise<void>;

  /** Marks the job failed with `error`. */
  protected abstract fail(id: string, error: JobError): Promise<void>;

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
      await this.work(id, controller.signal);
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof LeaseLost) {
        // Another worker runs it now (this one paused past its lease): nothing of this run was kept.
        this.log.warn({ id }, error.message);
        return;
      }
      const failure = error instanceof JobFailure;
      await this.fail(id, {
        message: failure ? error.message : `The job stopped on an internal error: ${(error as Error).message}`,
        stacktrace: failure ? null : ((error as Error).stack ?? null),
      });
    } finally {
      stopKeeping();
      await this.leases.release(id).catch(() => undefined);
    }
  }
}
