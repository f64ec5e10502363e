// The evaluation engine (docs/evaluation-engine.md): runs the jobs of one kind (automatic
// evaluations, human-evaluation output generation), each a row of the kind's table held with a
// lease (leases.ts, scheduler.ts). A run is planned and marked started, its pending cases run in
// batches with a delay between them, each batch is stored in a transaction fenced by the lease, and
// the kind's finish says how it ends. A worker that lost its lease stores nothing more and does not
// end the run; a resumed run runs only the cases not stored.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../shared/context.js';
import { Prisma } from '../shared/db.js';
import { afterRequestsSent } from '../shared/http/turns.js';
import { toJson } from '../shared/json.js';
import { PROGRESS_FIELDS, progressOf } from './events.js';
import type { CaseRun, Ending, JobDb, JobKind, StoredBatch } from './job-kind.js';
import { Leases } from './leases.js';
import { JobScheduler, type SchedulerSettings } from './scheduler.js';

type ProgressRow = Parameters<typeof progressOf>[0];

export class EvaluationEngine<Row extends { leaseOwner: string | null }, Plan, Case, Outcome> {
  private readonly leases: Leases;
  private readonly scheduler: JobScheduler;

  constructor(
    private readonly services: Pick<Services, 'db' | 'sql' | 'events' | 'metrics'>,
    private readonly kind: JobKind<Row, Plan, Case, Outcome>,
    settings: SchedulerSettings,
    log: FastifyBaseLogger,
  ) {
    this.leases = new Leases(kind.model(services.db), services.db, services.sql, {
      owner: randomUUID(),
      leaseMs: settings.leaseMs,
      table: kind.table,
      statuses: kind.states.runnable,
      only: kind.only,
    });
    this.scheduler = new JobScheduler(kind.name, services.events, this.leases, settings, log, {
      work: (id, signal) => this.work(id, signal),
      fail: (id, error) => this.end(id, { status: kind.states.failed, error }, null),
    });
    services.metrics.watchRunningJobs(kind.name, () => this.scheduler.runningJobs);
  }

  /** Runs the kind's jobs, now and as they come. */
  start(): void {
    this.scheduler.start();
  }

  /** Stops taking jobs, aborts those under way (they resume at the next start) and waits for them. */
  stop(): Promise<void> {
    return this.scheduler.stop();
  }

  private async work(id: string, signal: AbortSignal): Promise<void> {
    const row = await this.kind.load(id);
    if (!row || row.leaseOwner !== this.leases.owner) return;
    const { plan, limits, start } = await this.kind.plan(row);
    const started = await this.kind.model(this.services.db).updateMany({
      where: { id, leaseOwner: this.leases.owner, status: { in: [...this.kind.states.runnable] } },
      data: { status: this.kind.states.started, statusError: Prisma.JsonNull, ...start },
    });
    if (started.count === 0) return;
    this.publish(id);
    this.kind.changed?.(id, plan);
    await this.runCases(id, plan, { signal, limits });
    await this.end(id, await this.kind.finish(plan), plan);
  }

  /** The pending cases, a batch at a time; a batch is stored while the next one runs. */
  private async runCases(id: string, plan: Plan, run: CaseRun): Promise<void> {
    const batches = inBatches(this.kind.pending(plan), run.limits.batchSize);
    const start = (batch: Case[]) => Promise.all(batch.map((item) => this.kind.runCase(plan, item, run)));
    const fenced = (write: (tx: JobDb) => Promise<StoredBatch>) => this.fenced(id, write);
    let next = await batches.next();
    let running = next.done ? null : start(next.value);
    let writing: Promise<void> = Promise.resolve();
    while (running) {
      const outcomes = await running;
      run.signal.throwIfAborted();
      // The previous batch's write ends before another batch starts: at most one batch waits to be
      // written, so results cannot pile up in memory should storing fall behind the calls. A failed
      // write ends the run here.
      await writing;
      next = await batches.next();
      running = null;
      if (!next.done) {
        if (run.limits.delayMs > 0) await sleep(run.limits.delayMs, undefined, { signal: run.signal });
        // The next batch's calls go out before this batch is written: SQLite writes block the event
        // loop, and this way the endpoints work while they do (a request on a kept-alive
        // connection is written only in the next check phase: shared/http/turns.ts).
        running = start(next.value);
        await new Promise<void>((resolve) => afterRequestsSent(resolve));
      }
      writing = this.kind.store(plan, outcomes, fenced);
      // Its failure is met at the next `await writing`; this only keeps it from counting as unhandled meanwhile.
      writing.catch(() => undefined);
    }
    await writing;
  }

  /**
   * Runs `write` in one transaction that begins by renewing the lease (a worker that lost it rolls
   * back and stores nothing) and ends by counting what was written in the job's progress.
   */
  private async fenced(id: string, write: (tx: JobDb) => Promise<StoredBatch>): Promise<void> {
    const { stored, progress } = await this.services.db.$transaction(async (tx) => {
      await this.leases.fence(this.kind.model(tx), id);
      const stored = await write(tx);
      // The progress comes back from the same statement (RETURNING): no second read to publish it.
      const progress =
        this.kind.progress && stored.written > 0
          ? ((await this.kind.model(tx).update({
              where: { id },
              data: { done: { increment: stored.written }, errors: { increment: stored.errors } },
              select: PROGRESS_FIELDS,
            })) as ProgressRow)
          : null;
      return { stored, progress };
    });
    this.services.metrics.countCases(this.kind.name, stored.written, stored.errors);
    if (progress && this.kind.progress?.publish) this.publishProgress(progress);
  }

  /** Ends a run still under way, unless its status was changed meanwhile (a cancel wins) or another worker holds it now. */
  private async end(id: string, ending: Ending, plan: Plan | null): Promise<void> {
    const model = this.kind.model(this.services.db);
    if (ending.counts) await model.updateMany({ where: { id, leaseOwner: this.leases.owner }, data: ending.counts });
    await model.updateMany({
      where: { id, status: { in: [...this.kind.states.runnable] }, leaseOwner: this.leases.owner },
      data: { status: ending.status, statusError: ending.error ? toJson(ending.error) : Prisma.JsonNull, ...this.kind.ended?.() },
    });
    this.publish(id);
    this.kind.changed?.(id, plan);
  }

  /** Publishes the job's progress as it is stored now, for a kind that publishes it. */
  private publish(id: string): void {
    if (!this.kind.progress?.publish) return;
    this.kind
      .model(this.services.db)
      .findUnique({ where: { id }, select: PROGRESS_FIELDS })
      .then((row) => {
        if (row) this.publishProgress(row as ProgressRow);
      })
      .then(undefined, () => undefined);
  }

  private publishProgress(row: ProgressRow): void {
    this.services.events.publish('evaluation:progress', row.id, progressOf(row));
  }
}

/** `items` in arrays of `size` (the last one shorter), read as they are needed. */
async function* inBatches<T>(items: AsyncIterable<T> | Iterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
