// Runs online evaluation jobs (docs/online-evaluation.md#jobs) in batches: one statement claims
// free jobs with a lease and marks them started (`FOR UPDATE SKIP LOCKED` on PostgreSQL, leases.ts),
// the batch is decided together (job-decisions.ts: its rules, configs, targets and filter checks
// read in a few statements) ahead of the free call slots, each job's evaluator is called under a
// hard time limit with its provider calls traced (evaluator-run.ts), and the jobs that finished
// meanwhile are stored in one transaction fenced by their leases, their ends and lease releases
// included (job-endings.ts). A slot is free again once its evaluator answered: the write follows
// in the background, so judges are never idle while statements run.
// Transient failures (429, 5xx, timeouts, unreachable) wait and try again without using an attempt
// until the retry deadline; other failures use one of a few attempts.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { Leases } from '../evaluation-engine/leases.js';
import type { SchedulerSettings } from '../evaluation-engine/scheduler.js';
import type { Services } from '../shared/context.js';
import { follow } from '../shared/events.js';
import { onceAfterRequestsSent } from '../shared/http/turns.js';
import { runEvaluator } from './evaluator-run.js';
import { type DecidedJob, decideJobs } from './job-decisions.js';
import { type EndSettings, type Finished, type GroupWrite, endData, writeEnds } from './job-endings.js';
import { evaluatorVariables } from './mapping.js';
import { type JobRow, WAITING_STATUSES, ruleMappingOf } from './operations.js';
import { publishRuleProgress, publishRuleScored } from './progress.js';

export { backoffMs, MAX_BACKOFF_MS } from './job-endings.js';

export interface OnlineSettings extends EndSettings {
  /** The hard limit of one evaluator call. */
  timeoutMs: number;
}

declare module '../shared/context.js' {
  interface Services {
    /** Online evaluation's settings that requests need too (a preview's time limit). */
    onlineEvaluation: Pick<OnlineSettings, 'timeoutMs'>;
  }
}

const KIND = 'online-evaluation' as const;

/** How long ingestion must have been quiet before jobs start (OnlineEvaluationRunner.busy). */
const INGEST_QUIET_MS = 250;

/** The longest jobs are held back by ingestion in a row. */
const MAX_HOLD_MS = 5_000;

/** How soon a scan put off by ingestion is tried again. */
const BUSY_RETRY_MS = 50;

/**
 * How many jobs a process holds (claimed and not yet stored) per slot of the configured
 * concurrency: a batch decided ahead for the slots, and the writes not yet done. Past it no claim
 * is made, so writes slower than the judges hold the claims back rather than pile up.
 */
const HELD_PER_SLOT = 4;

/**
 * How long the first of a group of finished jobs waits for others before their write (unless a
 * round of slots finished sooner): one transaction stores several jobs, and its statements' fixed
 * costs are shared. The slots are free meanwhile, so the wait costs no throughput.
 */
const GROUP_WAIT_MS = 20;

/** A decided job waiting for a free call slot. */
interface Ready {
  item: DecidedJob;
  ran: () => void;
}

/** A finished job waiting for its group's write. */
interface Waiting {
  finished: Finished;
  done: (stored: GroupWrite['stored'][number] | null) => void;
  failed: (error: unknown) => void;
}

export class OnlineEvaluationRunner {
  private readonly leases: Leases;
  /** The jobs this process holds, claimed and not yet ended. */
  private readonly running = new Map<string, AbortController>();
  /** Decided jobs waiting for a call slot, oldest first. */
  private ready: Ready[] = [];
  /** Evaluator calls under way: at most the configured concurrency. */
  private calling = 0;
  private readonly batches = new Set<Promise<void>>();
  private readonly unsubscribes: (() => void)[] = [];
  private queue: Waiting[] = [];
  private writing = false;
  /** The queue is to be written as soon as the write under way ends. */
  private groupDue = false;
  private groupTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private busyTimer: NodeJS.Timeout | undefined;
  /** A scan soon, once: jobs ending in the same turn are claimed for as one batch. */
  private readonly scanSoon = onceAfterRequestsSent(() => void this.scan());
  /**
   * The due group is written once the turn's requests are: the evaluators' answers that came
   * meanwhile take their slots again before the write's statements hold the loop.
   */
  private readonly flushSoon = onceAfterRequestsSent(() => this.flush());
  private scanning = false;
  private rescan = false;
  private stopped = false;
  private heldSince: number | null = null;
  private lastHeld = 0;

  constructor(
    private readonly services: Services,
    private readonly settings: OnlineSettings,
    private readonly scheduling: SchedulerSettings,
    private readonly log: FastifyBaseLogger,
  ) {
    this.leases = new Leases(services.db.evaluationRuleJob, services.db, services.sql, {
      owner: randomUUID(),
      leaseMs: scheduling.leaseMs,
      table: 'EvaluationRuleJob',
      statuses: WAITING_STATUSES,
      due: 'notBefore',
      claimedStatus: 'RUNNING',
    });
    services.metrics.watchRunningJobs(KIND, () => this.calling);
  }

  /** Runs the jobs, now and as they come; takes over jobs whose worker died (their leases expired). */
  start(): void {
    this.unsubscribes.push(
      follow(this.services.events, 'jobs:created', (kind) => {
        if (kind === KIND) this.wake();
      }),
      // A rule deleted: its running jobs stop.
      follow(this.services.events, 'job:stopped', (id) => this.running.get(id)?.abort()),
      // Other instances' events may have been lost: look for work now rather than at the next poll.
      follow(this.services.events, 'events:missed', () => this.wake()),
    );
    this.pollTimer = setInterval(() => this.wake(), Math.max(250, this.scheduling.leaseMs / 2));
    this.pollTimer.unref();
    this.wake();
  }

  /** Stops taking jobs, aborts those under way (they are taken again at the next start) and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearTimeout(this.busyTimer);
    for (const unsubscribe of this.unsubscribes) unsubscribe();
    for (const controller of this.running.values()) controller.abort();
    // Jobs decided but not started are given back at once, for the next start or another instance.
    const ready = this.ready;
    this.ready = [];
    await Promise.all(
      ready.map(({ item, ran }) =>
        this.leases
          .release(item.job.id)
          .catch(() => undefined)
          .finally(ran),
      ),
    );
    await Promise.allSettled([...this.batches]);
  }

  /**
   * Ingestion comes first (docs/online-evaluation.md#jobs): while spans are being written, and for
   * INGEST_QUIET_MS after, no job starts, so rules take no CPU or write turn from the writer. Held
   * MAX_HOLD_MS in a row, one scan goes through, so jobs still move under endless ingestion.
   */
  private busy(): boolean {
    if (this.services.spanQueue.idleMs >= INGEST_QUIET_MS) {
      this.heldSince = null;
      return false;
    }
    const now = Date.now();
    // A hold whose last check is long past ended then (the scan checks every BUSY_RETRY_MS while held).
    if (this.heldSince === null || now - this.lastHeld > 1_000) this.heldSince = now;
    this.lastHeld = now;
    if (now - this.heldSince < MAX_HOLD_MS) return true;
    this.heldSince = now;
    return false;
  }

  /**
   * How many jobs the next claim takes: enough for every slot and one round more, so a slot that
   * frees finds a decided job waiting; nothing while half a round is still waiting, so claims come
   * in batches rather than a job at a time.
   */
  private wanted(): number {
    const slots = this.scheduling.concurrency;
    const room = Math.min(2 * slots - this.calling - this.ready.length, HELD_PER_SLOT * slots - this.running.size);
    if (room <= 0) return 0;
    return this.ready.length > 0 && room < Math.ceil(slots / 2) ? 0 : room;
  }

  private wake(): void {
    if (!this.stopped) this.scanSoon();
  }

  private async scan(): Promise<void> {
    if (this.stopped) return;
    if (this.busy()) {
      // Put off, not dropped: the jobs a wake-up announced would otherwise wait for the next poll.
      this.busyTimer ??= setTimeout(() => {
        this.busyTimer = undefined;
        void this.scan();
      }, BUSY_RETRY_MS);
      this.busyTimer.unref();
      return;
    }
    // Ingestion is quiet: decided jobs may take the free slots.
    this.startCalls();
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = true;
    try {
      do {
        this.rescan = false;
        const take = this.wanted();
        const ids = await this.leases.claim(take, [...this.running.keys()]);
        if (ids.length === 0) continue;
        if (this.stopped) {
          // Stopped during the claim: given back at once, for the next start or another instance.
          await Promise.all(ids.map((id) => this.leases.release(id)));
          break;
        }
        for (const id of ids) {
          const controller = new AbortController();
          // A job's signal is listened to by its evaluator's calls.
          setMaxListeners(0, controller.signal);
          this.running.set(id, controller);
        }
        // The next claim waits for this batch's decisions, so it knows how many are ready (at the
        // latest when the batch is over, however it ended).
        let decided!: () => void;
        const decision = new Promise<void>((resolve) => (decided = resolve));
        const batch = this.runBatch(ids, decided).catch((error: unknown) => this.log.error({ err: error }, 'online evaluation batch failed'));
        this.batches.add(batch);
        void batch.finally(() => {
          this.batches.delete(batch);
          decided();
        });
        await decision;
        // A full claim may have left more; a short one took all there was.
        if (ids.length === take && take > 0) this.rescan = true;
      } while (this.rescan && !this.stopped);
    } catch (error) {
      this.log.error({ err: error }, 'job scan failed');
    } finally {
      this.scanning = false;
    }
  }

  /** Decides the claimed jobs together (then calls `decided`, once those to run are queued), ends those that do not run, and queues the others for a call slot. */
  private async runBatch(ids: readonly string[], decided: () => void): Promise<void> {
    const keepers = new Map(ids.map((id) => [id, this.leases.keep(id, this.running.get(id)!)]));
    const stopKeeping = (id: string) => {
      keepers.get(id)?.();
      this.running.delete(id);
      this.wake();
    };
    let rows: JobRow[] = [];
    let runs: Promise<void>[] = [];
    const queued = new Set<string>();
    try {
      rows = await this.services.db.evaluationRuleJob.findMany({ where: { id: { in: [...ids] }, leaseOwner: this.leases.owner } });
      const found = new Set(rows.map((row) => row.id));
      // Gone (its rule deleted) or taken by another worker between the claim and this read.
      for (const id of ids) if (!found.has(id)) stopKeeping(id);
      const decisions = await decideJobs(this.services, rows);
      this.publishProgress(rows);
      runs = decisions
        .filter((item) => item.decision.action === 'run')
        .map((item) => {
          queued.add(item.job.id);
          return new Promise<void>((ran) => this.ready.push({ item, ran })).finally(() => stopKeeping(item.job.id));
        });
      this.startCalls();
      decided();
      const ends: Promise<void>[] = [];
      for (const item of decisions) {
        const { decision } = item;
        if (decision.action === 'run') continue;
        const data =
          decision.action === 'skip'
            ? endData({ status: 'SKIPPED', reason: decision.reason })
            : decision.action === 'wait'
              ? endData({ status: 'PENDING', until: decision.until, reason: decision.reason })
              : endData({ status: 'ERROR', message: decision.message });
        ends.push(this.end(item.job.id, data).finally(() => stopKeeping(item.job.id)));
      }
      await Promise.all(ends);
      if (ends.length > 0) this.publishProgress(decisions.filter((item) => item.decision.action !== 'run').map((item) => item.job));
    } catch (error) {
      // A fault of the batch's reads or ends (not of one job): its jobs not queued to run end failed, as an internal error.
      const message = `The job stopped on an internal error: ${(error as Error).message}`;
      await Promise.all(
        ids
          .filter((id) => this.running.has(id) && !queued.has(id))
          .map((id) =>
            this.end(id, endData({ status: 'ERROR', message, stacktrace: (error as Error).stack ?? null }))
              .catch(() => undefined)
              .finally(() => stopKeeping(id)),
          ),
      );
      this.publishProgress(rows);
    }
    await Promise.all(runs);
  }

  /** Starts the ready jobs that free call slots allow (once ingestion is quiet: `scan`); a job's slot is freed when its evaluator answered. */
  private startCalls(): void {
    while (this.calling < this.scheduling.concurrency && this.ready.length > 0) {
      const { item, ran } = this.ready.shift()!;
      this.calling++;
      const callEnded = () => {
        this.calling--;
        // The slot is taken again at once, before this turn's writes and decisions run.
        if (!this.stopped && !this.busy()) this.startCalls();
        this.wake();
      };
      void this.runJob(item, callEnded).finally(ran);
    }
  }

  /** Calls the job's evaluator and stores its outcome with the group finishing meanwhile; a job stopped is given back. */
  private async runJob(item: DecidedJob, callEnded: () => void): Promise<void> {
    const { ctx, job, rule, decision } = item;
    if (decision.action !== 'run' || !rule) return callEnded();
    const signal = this.running.get(job.id)!.signal;
    try {
      const outcome = await runEvaluator(
        this.services,
        this.settings.timeoutMs,
        ctx,
        decision.config,
        evaluatorVariables(decision.document, ruleMappingOf(rule)),
        decision.views,
        signal,
      ).finally(callEnded);
      await new Promise<GroupWrite['stored'][number] | null>((done, failed) => {
        this.queueWrite({ finished: { ctx, job, rule, evaluatorKey: decision.config.evaluatorKey, outcome }, done, failed });
      });
    } catch (error) {
      if (signal.aborted) {
        // Stopped (the process stops, the lease was lost, the rule deleted): taken again later, or gone.
        await this.leases.release(job.id).catch(() => undefined);
        return;
      }
      await this.end(
        job.id,
        endData({ status: 'ERROR', message: `The job stopped on an internal error: ${(error as Error).message}`, stacktrace: (error as Error).stack ?? null }),
      ).catch((failure: unknown) => this.log.error({ err: failure, id: job.id }, 'job failed to record its end'));
      this.publishProgress([job]);
    }
  }

  /** Queues a finished job's write: its group is written once a round of slots has finished or the first has waited GROUP_WAIT_MS. */
  private queueWrite(waiting: Waiting): void {
    this.queue.push(waiting);
    if (this.queue.length >= this.scheduling.concurrency) this.groupDue = true;
    else
      this.groupTimer ??= setTimeout(() => {
        this.groupTimer = undefined;
        this.groupDue = true;
        this.flushSoon();
      }, GROUP_WAIT_MS);
    this.flushSoon();
  }

  /** Writes the group waiting when it is due, a group at a time: each group is one fenced transaction. */
  private flush(): void {
    if (this.writing || !this.groupDue || this.queue.length === 0) return;
    this.groupDue = false;
    clearTimeout(this.groupTimer);
    this.groupTimer = undefined;
    const group = this.queue;
    this.queue = [];
    this.writing = true;
    void this.writeGroup(group).finally(() => {
      this.writing = false;
      this.flushSoon();
    });
  }

  private async writeGroup(group: Waiting[]): Promise<void> {
    let written: GroupWrite;
    try {
      written = await writeEnds(
        this.services.db,
        this.leases.owner,
        this.scheduling.leaseMs,
        this.settings,
        group.map((waiting) => waiting.finished),
      );
    } catch (error) {
      if (group.length === 1) return group[0].failed(error);
      // One job's write failed the group's: each is written alone, so only that one fails.
      for (const waiting of group) await this.writeGroup([waiting]);
      return;
    }
    for (const lost of written.lost) this.log.warn({ id: lost.job.id }, `the lease on ${lost.job.id} was lost to another worker`);
    const errors = written.stored.filter((stored) => stored.status === 'ERROR' || stored.finished.outcome.kind === 'failed').length;
    this.services.metrics.countCases(KIND, written.stored.length, errors);
    for (const stored of written.stored) if (stored.scored) publishRuleScored(this.services.events, stored.scored);
    this.publishProgress(group.map((waiting) => waiting.finished.job));
    const byId = new Map(written.stored.map((stored) => [stored.finished.job.id, stored]));
    for (const waiting of group) waiting.done(byId.get(waiting.finished.job.id) ?? null);
  }

  /** Ends a job this worker still holds and that still needs work, its lease given back. */
  private async end(id: string, data: ReturnType<typeof endData>): Promise<void> {
    await this.services.db.evaluationRuleJob.updateMany({
      where: { id, leaseOwner: this.leases.owner, status: { in: [...WAITING_STATUSES] } },
      data,
    });
  }

  /** Tells the rules of these jobs' followers that their jobs changed (once a rule). */
  private publishProgress(jobs: readonly Pick<JobRow, 'ruleId'>[]): void {
    for (const ruleId of new Set(jobs.map((job) => job.ruleId))) publishRuleProgress(this.services.events, ruleId);
  }
}
