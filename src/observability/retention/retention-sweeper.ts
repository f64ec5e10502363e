// Retention (docs/observability.md#retention): a trace is deleted once its latest span ended
// longer ago than its project's retention (Project.retentionDays, else ASSAY_RETENTION_DAYS; none:
// kept forever). A sweep runs every ASSAY_RETENTION_INTERVAL_SECONDS on every instance. Each
// batch is one short transaction over at most `batchSize` traces under their ingestion locks, and
// the sweep yields between batches, so ingestion waits for one batch at most. Batches re-check
// their condition under the locks, so instances sweeping at once delete each trace once.
//
// On PostgreSQL the oldest day partitions of "Span" go whole first (docs/database.md#span-partitions),
// once every project with spans in them is past them: their traces' rows go, without their spans,
// which go with the partition. Row deletion then handles what differs between projects.
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import { projectRetentions } from '../../projects/operations.js';
import { requestContext, type RequestContext, type Services } from '../../shared/context.js';
import { type SqlValue, traceLockKeys } from '../../shared/sql.js';
import { deleteScoresOfProjectBefore, deleteScoresOfTraces } from '../../scores/operations.js';
import { deleteLogRecordsOfGoneTraces, deleteTracesBefore, deleteUnjoinedLogRecords, goneTraces } from './deletion.js';
import type { SpanPartition } from '../ingestion/span-partitions.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionSettings {
  /** ASSAY_RETENTION_DAYS: for projects that set none; null keeps their traces forever. */
  defaultDays: number | null;
  /** Traces per transaction. */
  batchSize: number;
  /** Days of partitions made ahead of today (PostgreSQL). */
  partitionsAhead: number;
}

export interface SweepResult {
  /** Traces deleted. */
  traces: number;
  /** Scores deleted for being older than their project's cutoff (a trace's go with it, uncounted). */
  scores: number;
  /** Transactions that deleted traces or their rows (each over `batchSize` traces at most). */
  batches: number;
  /** Partitions dropped (PostgreSQL), oldest first. */
  partitionsDropped: string[];
  /** Log records deleted whose trace never arrived (docs/observability.md#otlp-logs). */
  logRecords: number;
}

export const defaultRetentionSettings: RetentionSettings = { defaultDays: null, batchSize: 500, partitionsAhead: 3 };

/** A project and the time before which its traces go (null: kept forever). */
interface Cutoff {
  projectId: string;
  before: Date | null;
}

export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    private readonly services: Services,
    private readonly settings: RetentionSettings,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Makes today's and the next days' partitions now, then sweeps every `intervalMs`. */
  async start(intervalMs: number): Promise<void> {
    await this.services.spanPartitions.ensureAhead(new Date(), this.settings.partitionsAhead).catch((error: unknown) => {
      // Ingestion makes a missing partition itself: a failure here delays nothing.
      this.log.error({ err: error }, 'creating span partitions ahead failed');
    });
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep under way, which stops after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.sweep()
      .catch((error: unknown) => this.log.error({ err: error }, 'retention sweep failed'))
      .finally(() => (this.running = null));
  }

  /** One sweep, as the timer runs it (tests call it directly). */
  async sweep(now = new Date()): Promise<SweepResult> {
    const { spanPartitions } = this.services;
    await spanPartitions.ensureAhead(now, this.settings.partitionsAhead);
    const cutoffs = (await projectRetentions(this.services.db)).map(({ id, retentionDays }): Cutoff => {
      const days = retentionDays ?? this.settings.defaultDays;
      return { projectId: id, before: days === null ? null : new Date(now.getTime() - days * DAY_MS) };
    });
    const result: SweepResult = { traces: 0, scores: 0, batches: 0, partitionsDropped: [], logRecords: 0 };
    if (spanPartitions.enabled) await this.dropPartitions(now, cutoffs, result);
    for (const { projectId, before } of cutoffs) {
      if (!before) continue;
      result.traces += await this.deleteExpired(projectId, before, result);
      // Scores older than the cutoff, whatever they name: a session's, a scenario's, those of a
      // trace that never came (docs/scores.md#deleting). A trace's went with it above.
      if (!this.stopped) result.scores += await deleteScoresOfProjectBefore(this.services, projectId, before);
      result.logRecords += await deleteUnjoinedLogRecords(requestContext(this.services, projectId), before);
    }
    if (result.traces > 0 || result.scores > 0 || result.partitionsDropped.length > 0 || result.logRecords > 0)
      this.log.info(result, 'retention sweep deleted traces');
    return result;
  }

  /**
   * Removes a project's traces matching `condition` (SQL over "Trace", with `params`) a batch at a
   * time, `remove` answering how many of a batch went; yields between batches. Answers the total.
   */
  private async inBatches(
    projectId: string,
    condition: string,
    params: SqlValue[],
    remove: (ctx: RequestContext, traceIds: string[]) => Promise<number>,
    result: SweepResult,
  ): Promise<number> {
    const ctx = requestContext(this.services, projectId);
    let removed = 0;
    // Past the last batch: a trace chosen but kept (it received a span since) is not chosen again.
    let after: SqlValue[] = [];
    while (!this.stopped) {
      // Ordered by the start time's index: a trace ends after it starts, so the old ones come first.
      const rows = await ctx.sql.query<{ traceId: string; startTime: Date }>(
        ctx.db,
        `SELECT "traceId" AS "traceId", "startTime" AS "startTime" FROM "Trace"
         WHERE "projectId" = ? AND ${condition}${after.length ? ' AND ("startTime", "traceId") > (?, ?)' : ''}
         ORDER BY "startTime", "traceId" LIMIT ?`,
        [projectId, ...params, ...after, this.settings.batchSize],
      );
      if (rows.length === 0) break;
      removed += await remove(
        ctx,
        rows.map((row) => row.traceId),
      );
      result.batches++;
      if (rows.length < this.settings.batchSize) break;
      const last = rows.at(-1)!;
      after = [last.startTime, last.traceId];
      await yieldToOthers();
    }
    return removed;
  }

  /** A project's traces that ended before `time`, spans and all. */
  private deleteExpired(projectId: string, time: Date, result: SweepResult): Promise<number> {
    const remove = async (ctx: RequestContext, ids: string[]) => (await deleteTracesBefore(ctx, ids, 'endTime', time)).traces;
    return this.inBatches(projectId, '"startTime" < ? AND "endTime" < ?', [time, time], remove, result);
  }

  /**
   * PostgreSQL: drops the oldest partitions whose every span belongs to a project past them, in
   * order, stopping at the first that must stay (a project keeping its traces longer has spans in
   * it). The traces that started in them go first: those that also have spans in a later
   * partition by rows, the others by their Trace row only, their spans going with the partition.
   */
  private async dropPartitions(now: Date, cutoffs: Cutoff[], result: SweepResult): Promise<void> {
    const { spanPartitions, sql, db } = this.services;
    const droppable: SpanPartition[] = [];
    for (const partition of await spanPartitions.list()) {
      if (partition.to > now) break;
      const keepers = cutoffs.filter((cutoff) => cutoff.before === null || cutoff.before < partition.to).map((cutoff) => cutoff.projectId);
      if (keepers.length > 0) {
        const kept = await sql.query(db, `SELECT 1 AS "one" FROM "${partition.name}" WHERE "projectId" IN (${sql.jsonValues('?')}) LIMIT 1`, [
          JSON.stringify(keepers),
        ]);
        if (kept.length > 0) break;
      }
      droppable.push(partition);
    }
    if (droppable.length === 0) return;
    // Every trace that started before `end` has a span in a partition about to go: it goes whole.
    const end = droppable.at(-1)!.to;
    for (const { projectId } of cutoffs) {
      result.traces += await this.deleteStraddling(projectId, end, result);
      result.traces += await this.deleteTraceRows(projectId, end, result);
    }
    for (const partition of droppable) {
      if (this.stopped) return;
      await spanPartitions.drop(partition);
      result.partitionsDropped.push(partition.name);
    }
  }

  /** The traces that started before `end` but have spans after it: by rows, whole. */
  private deleteStraddling(projectId: string, end: Date, result: SweepResult): Promise<number> {
    const remove = async (ctx: RequestContext, ids: string[]) => (await deleteTracesBefore(ctx, ids, 'startTime', end)).traces;
    return this.inBatches(projectId, '"startTime" < ? AND "endTime" >= ?', [end, end], remove, result);
  }

  /** The Trace rows of traces that ended before `end`: their spans go with their partitions. */
  private deleteTraceRows(projectId: string, end: Date, result: SweepResult): Promise<number> {
    const { sql } = this.services;
    const remove = (ctx: RequestContext, ids: string[]) =>
      sql.transaction(async (tx) => {
        // Under the ingestion locks, so a span arriving now either finds its trace or starts it anew.
        await sql.lockKeys(tx, traceLockKeys(projectId, ids));
        const deleted = await sql.run(tx, `DELETE FROM "Trace" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')}) AND "endTime" < ?`, [
          projectId,
          JSON.stringify(ids),
          end,
        ]);
        await deleteScoresOfTraces(sql, tx, projectId, await goneTraces(ctx, tx, ids));
        await deleteLogRecordsOfGoneTraces(ctx, tx, ids);
        return deleted;
      });
    return this.inBatches(projectId, '"startTime" < ? AND "endTime" < ?', [end, end], remove, result);
  }
}
