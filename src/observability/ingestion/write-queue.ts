// The write queue of span ingestion (OTLP over HTTP and gRPC). Requests hand their SpanRecords to
// the queue and wait: a writer takes the waiting requests of a project together, up to
// `maxBatchSpans`, and stores them with one `writeSpans` call (one transaction), then answers each
// request. One writer on SQLite (its writes are serialised anyway); on PostgreSQL two, so that one
// batch is built on this thread while the server stores the other (docs/database.md#raw-sql). A
// request is answered 2xx only after the transaction holding its spans committed, so nothing
// acknowledged can be lost by a crash. When more than `maxQueuedSpans` wait, new requests
// are refused at once with 503 and Retry-After (OTLP exporters retry those), bounding memory.
import type { RequestContext } from '../../shared/context.js';
import { OverloadedError } from '../../shared/errors.js';
import type { AnySpanRecord, WriteSummary } from './span-record.js';
import { writeSpans } from './span-writer.js';

export interface QueueLimits {
  /** Spans that may wait (not yet being written) before requests are refused. */
  maxQueuedSpans: number;
  /** Spans written per transaction at most (a single larger request is written alone). */
  maxBatchSpans: number;
  /** Seconds sent in Retry-After when the queue is full. */
  retryAfterSeconds: number;
  /** Batches written at once, each in its own transaction. */
  writers: number;
}

export const defaultQueueLimits: QueueLimits = { maxQueuedSpans: 100_000, maxBatchSpans: 5_000, retryAfterSeconds: 1, writers: 1 };

interface Job {
  ctx: RequestContext;
  records: readonly AnySpanRecord[];
  resolve(summary: WriteSummary): void;
  reject(error: unknown): void;
}

export type SpanWriter = (ctx: RequestContext, records: readonly AnySpanRecord[]) => Promise<WriteSummary>;

export class SpanWriteQueue {
  private readonly jobs: Job[] = [];
  private queued = 0;
  private readonly running = new Set<Promise<void>>();
  private closed = false;
  private resumed: Promise<void> | null = null;
  private resume_: (() => void) | null = null;
  limits: QueueLimits;

  constructor(
    limits: Partial<QueueLimits> = {},
    private readonly write: SpanWriter = writeSpans,
  ) {
    this.limits = { ...defaultQueueLimits, ...limits };
  }

  /** Spans waiting to be written (not counting the batch being written). */
  get waitingSpans(): number {
    return this.queued;
  }

  private lastActive = 0;

  /** Milliseconds since the queue last had spans to write or being written (0 while it has). */
  get idleMs(): number {
    return this.queued > 0 || this.running.size > 0 ? 0 : Date.now() - this.lastActive;
  }

  /**
   * Stores `records` in the caller's project; resolves once they are committed. Rejects with
   * OverloadedError (503, Retry-After) when the queue is full or closing. An empty queue takes a
   * request of any size, so one large request is never refused for its size alone.
   */
  submit(ctx: RequestContext, records: readonly AnySpanRecord[]): Promise<WriteSummary> {
    if (records.length === 0) return Promise.resolve({ spans: 0, traceIds: [] });
    if (this.closed) return Promise.reject(new OverloadedError('The server is shutting down', this.limits.retryAfterSeconds));
    if (this.queued > 0 && this.queued + records.length > this.limits.maxQueuedSpans) {
      return Promise.reject(new OverloadedError(`The write queue is full (${this.queued} spans waiting); retry later`, this.limits.retryAfterSeconds));
    }
    return new Promise<WriteSummary>((resolve, reject) => {
      this.jobs.push({ ctx, records, resolve, reject });
      this.queued += records.length;
      if (this.running.size < this.limits.writers) {
        const drained: Promise<void> = this.drain().finally(() => {
          this.running.delete(drained);
          this.lastActive = Date.now();
        });
        this.running.add(drained);
      }
    });
  }

  /**
   * Holds writes (requests keep queueing up to the limit, then get 503) until `resume()`: for
   * maintenance such as a file-level backup of the database.
   */
  pause(): void {
    this.resumed ??= new Promise<void>((resolve) => (this.resume_ = resolve));
  }

  resume(): void {
    this.resume_?.();
    this.resumed = null;
    this.resume_ = null;
  }

  /** Refuses new requests and waits until every accepted one is written. */
  async close(): Promise<void> {
    this.closed = true;
    this.resume();
    while (this.running.size > 0) await Promise.all(this.running);
  }

  private async drain(): Promise<void> {
    while (this.jobs.length > 0) {
      if (this.resumed) {
        await this.resumed;
        continue;
      }
      const batch = this.takeBatch();
      for (const job of batch) this.queued -= job.records.length;
      await this.writeBatch(batch);
    }
  }

  /** The oldest job, and after it the following jobs of the same project while they fit. */
  private takeBatch(): Job[] {
    const first = this.jobs.shift()!;
    const batch = [first];
    let spans = first.records.length;
    for (let i = 0; i < this.jobs.length && spans < this.limits.maxBatchSpans;) {
      const job = this.jobs[i];
      if (job.ctx.projectId === first.ctx.projectId && spans + job.records.length <= this.limits.maxBatchSpans) {
        batch.push(job);
        spans += job.records.length;
        this.jobs.splice(i, 1);
      } else i++;
    }
    return batch;
  }

  private async writeBatch(batch: Job[]): Promise<void> {
    if (batch.length === 1) {
      const job = batch[0];
      await this.write(job.ctx, job.records).then(
        (summary) => job.resolve(summary),
        (error) => job.reject(error),
      );
      return;
    }
    try {
      await this.write(
        batch[0].ctx,
        batch.flatMap((job) => job.records),
      );
    } catch {
      // One request's spans may be what failed: write each alone, so the others still succeed.
      for (const job of batch)
        await this.write(job.ctx, job.records).then(
          (summary) => job.resolve(summary),
          (error) => job.reject(error),
        );
      return;
    }
    for (const job of batch) job.resolve(summarise(job.records));
  }
}

/** What one request's share of a combined batch wrote. */
function summarise(records: readonly AnySpanRecord[]): WriteSummary {
  const keys = new Set<string>();
  const traces = new Set<string>();
  for (const record of records) {
    keys.add(`${record.traceId}\u0000${record.spanId}`);
    traces.add(record.traceId);
  }
  return { spans: keys.size, traceIds: [...traces] };
}

declare module '../../shared/context.js' {
  interface Services {
    /** The ingestion queue of the service's database: its one span writer (created by server.ts). */
    spanQueue: SpanWriteQueue;
  }
}
