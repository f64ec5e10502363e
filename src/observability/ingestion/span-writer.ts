// The one write path of spans. Every source (legacy JSON, OTLP over HTTP or gRPC, the evaluation
// runners) maps what it receives to SpanRecords (span-record.ts) and calls `writeSpans` (the
// runners `spanWriter`, to store them with their own rows), which stores them and keeps the Trace
// roll-ups (trace-rollups.ts) current in the same transaction.
//
// Raw SQL on purpose: an upsert per row through Prisma costs a round trip through its query
// compiler each, while one multi-row `INSERT … ON CONFLICT DO UPDATE` per few hundred spans is
// an order of magnitude faster (docs/observability.md#measurements). The same SQL serves SQLite
// and PostgreSQL (docs/database.md#raw-sql); the span key and the partitions are PostgreSQL's own.
import type { RequestContext } from '../../shared/context.js';
import { type BulkSql, sqlDate, type SqlValue, traceLockKeys, type Tx, updateFromExcluded } from '../../shared/sql.js';
import { roundCost } from '../../shared/money.js';
import { priceList } from '../../pricing/operations.js';
import type { PriceList } from '../../pricing/prices.js';
import { nanosToDate } from '../../shared/time.js';
import { serializeSpanRecord, sharedJsonText, type AnySpanRecord, type SerializedSpanRecord, type WriteSummary } from './span-record.js';
import { rollUpTraceModels } from './trace-models.js';
import { joinWithLogRecords } from './log-writer.js';
import { rollUpTracesSql, spanRange } from './trace-rollups.js';

/**
 * Columns written per span, in the order of `spanRow`. `createdAt` is set here rather than by the
 * column default (SQLite's CURRENT_TIMESTAMP has another text format and whole seconds) and keeps
 * its first value when the span is sent again.
 */
export const spanColumns = [
  'projectId',
  'traceId',
  'spanId',
  'parentSpanId',
  'name',
  'spanKind',
  'statusCode',
  'statusMessage',
  'startTimeUnixNano',
  'endTimeUnixNano',
  'startTime',
  'endTime',
  'latency',
  'inputs',
  'outputs',
  'internals',
  'config',
  'environment',
  'userId',
  'sessionId',
  'appId',
  'variantId',
  'variantName',
  'variantRevision',
  'model',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'cachedTokens',
  'cost',
  'costSource',
  'attributes',
  'events',
  'links',
  'resource',
  'scope',
  'createdAt',
] as const;

/** Columns an upsert leaves alone: the key, and when the span was first stored. */
const keptOnConflict: readonly string[] = ['projectId', 'traceId', 'spanId', 'createdAt'];

/** The span's key: PostgreSQL's holds the partition column too (docs/database.md#span-partitions). */
function spanKey(sql: BulkSql): string {
  return sql.provider === 'postgresql' ? '"projectId", "traceId", "spanId", "startTime"' : '"projectId", "traceId", "spanId"';
}

/** The earliest and latest start time of a batch (DateTime SQL text, which sorts as time). */
function batchTimes(spans: readonly SerializedSpanRecord[]): { first: string; last: string } {
  let first = spans[0].startTime;
  let last = first;
  for (const span of spans) {
    if (span.startTime < first) first = span.startTime;
    if (span.startTime > last) last = span.startTime;
  }
  return { first, last };
}

/** The span's cost and where it came from: reported, computed from usage and prices, or none. */
function spanCost(span: SerializedSpanRecord, prices: PriceList): [number | null, 'reported' | 'computed' | null] {
  // A reported cost is kept to the pico-dollar like every other (docs/costs.md#exact-sums).
  const reported = roundCost(span.cost);
  if (reported !== null) return [reported, span.costSource ?? 'reported'];
  if (!span.model) return [null, null];
  const found = prices.callCost(
    null,
    span.model,
    { prompt_tokens: span.promptTokens, completion_tokens: span.completionTokens, cached_tokens: span.cachedTokens },
    nanosToDate(span.startTimeUnixNano),
  );
  return found ? [found.cost, found.source] : [null, null];
}

/** One span's values in `spanColumns` order (exported for bench/ingest's baseline, which inserts the same rows). */
export function spanRow(projectId: string, span: SerializedSpanRecord, now: string, prices: PriceList): SqlValue[] {
  const [cost, costSource] = spanCost(span, prices);
  return [
    projectId,
    span.traceId,
    span.spanId,
    span.parentSpanId,
    span.name,
    span.spanKind,
    span.statusCode,
    span.statusMessage ?? null,
    span.startTimeUnixNano,
    span.endTimeUnixNano,
    span.startTime,
    span.endTime,
    span.latency,
    span.inputs,
    span.outputs,
    span.internals,
    span.config,
    span.environment ?? null,
    span.userId ?? null,
    span.sessionId ?? null,
    span.appId ?? null,
    span.variantId ?? null,
    span.variantName ?? null,
    span.variantRevision ?? null,
    span.model ?? null,
    span.promptTokens ?? null,
    span.completionTokens ?? null,
    span.totalTokens ?? null,
    span.cachedTokens ?? null,
    cost,
    costSource,
    span.attributes,
    span.events,
    span.links,
    span.resource,
    span.scope,
    now,
  ];
}

/**
 * PostgreSQL: a span sent again with another start time would land beside its first copy (the
 * key holds "startTime", docs/database.md#span-partitions), so the first copy goes first. Only
 * the partitions of the traces' stored spans (`stored`) are looked into.
 */
async function deleteMovedSpans(ctx: RequestContext, tx: Tx, spans: readonly SerializedSpanRecord[], stored: [string, string]): Promise<void> {
  const keys = JSON.stringify(spans.map((span) => [span.traceId, span.spanId, span.startTime]));
  await ctx.sql.run(
    tx,
    `DELETE FROM "Span" AS s USING jsonb_array_elements(?::jsonb) AS u(k)
     WHERE s."projectId" = ? AND s."traceId" = u.k->>0 AND s."spanId" = u.k->>1 AND s."startTime" <> (u.k->>2)::timestamp(3)
       AND s."startTime" >= ?::timestamp(3) AND s."startTime" <= ?::timestamp(3)`,
    [keys, ctx.projectId, ...stored],
  );
}

/** Stores spans inside the caller's `db.$transaction` (`tx` is its client): what `spanWriter` answers. */
export type SpanStore = (tx: Tx, records: readonly AnySpanRecord[]) => Promise<WriteSummary>;

/**
 * Stores `records` in the caller's project in one transaction: a span already stored under the
 * same (trace, span) id is overwritten, never duplicated. Then recomputes the roll-up of every
 * trace touched from all of that trace's spans, so batches may arrive in any order. Then
 * announces the traces touched (`traces:stored`).
 */
export async function writeSpans(ctx: RequestContext, records: readonly AnySpanRecord[]): Promise<WriteSummary> {
  if (records.length === 0) return { spans: 0, traceIds: [] };
  const store = await spanWriter(ctx);
  const summary = await ctx.sql.transaction((tx) => store(tx, records));
  // Committed, so readable: GraphQL `tracesStored` tells live trace lists (docs/ui.md#live-updates).
  ctx.events.publish('traces:stored', ctx.projectId, summary.traceIds);
  // Online evaluation plans its jobs from here, later and apart (docs/online-evaluation.md#jobs).
  for (const hook of ctx.tracesStoredHooks) hook(ctx.projectId, summary.traceIds);
  return summary;
}

declare module '../../shared/context.js' {
  interface Services {
    /**
     * Told of each commit of ingested spans, in this process only; a hook must return at once and
     * never throw (its work is its own, so ingestion is never slowed or refused by it).
     */
    tracesStoredHooks: ((projectId: string, traceIds: string[]) => void)[];
  }
}

/**
 * `writeSpans` for a caller that writes other rows in the same transaction (an evaluation's
 * scenarios and the traces of their calls), so that both commit or neither does. The function
 * answered must run inside `ctx.db.$transaction`; the price list it needs is read here, because
 * no other query can run on the connection while that transaction holds it.
 */
export async function spanWriter(ctx: RequestContext, options: StoreOptions = {}): Promise<SpanStore> {
  const prices = await priceList(ctx);
  return (tx, records) => storeSpans(ctx, tx, records, prices, options);
}

export interface StoreOptions {
  /**
   * The caller minted every trace id of the records just now and writes each trace whole in this
   * call (online evaluation's judge traces): nothing else is stored of them, so there is no other
   * writer to wait for, no log record or moved span to look for, no stored range to read and no
   * model row to replace. The roll-ups are the same statements' (docs/observability.md#roll-ups).
   */
  newTraces?: boolean;
}

async function storeSpans(
  ctx: RequestContext,
  tx: Tx,
  records: readonly AnySpanRecord[],
  prices: PriceList,
  { newTraces = false }: StoreOptions,
): Promise<WriteSummary> {
  // One row per key, the last copy winning (PostgreSQL refuses to upsert a row twice in one statement).
  const latest = new Map<string, AnySpanRecord>();
  for (const record of records) latest.set(`${record.traceId}\u0000${record.spanId}`, record);
  const text = sharedJsonText();
  const spans = [...latest.values()].map((record) => serializeSpanRecord(record, text));
  const traceIds = [...new Set(spans.map((span) => span.traceId))];
  if (spans.length === 0) return { spans: 0, traceIds: [] };

  // PostgreSQL: every span's day must have its partition before the insert (span-partitions.ts).
  await ctx.spanPartitions.ensureFor(
    tx,
    spans.map((span) => span.startTime),
  );
  const ids = JSON.stringify(traceIds);
  let range: SqlValue[];
  if (newTraces) {
    // What spanRange answers for traces with no roll-up yet: the batch's own start times.
    const times = batchTimes(spans);
    range = ctx.sql.provider === 'postgresql' ? [times.first, times.last] : [];
  } else {
    // A batch's roll-up must see every other batch of its traces (PostgreSQL runs them at once).
    await ctx.sql.lockKeys(tx, traceLockKeys(ctx.projectId, traceIds));
    // Under the locks, so that log records committed before this batch are in it (log-writer.ts).
    await joinWithLogRecords(ctx, tx, spans);
    const found = await spanRange(ctx, tx, ids, batchTimes(spans));
    if (found.stored) await deleteMovedSpans(ctx, tx, spans, found.stored);
    range = found.range;
  }
  const now = new Date();
  const nowText = sqlDate(now);
  await ctx.sql.insertRows(
    tx,
    'Span',
    spanColumns,
    spans.map((span) => spanRow(ctx.projectId, span, nowText, prices)),
    `ON CONFLICT (${spanKey(ctx.sql)}) DO UPDATE SET ${updateFromExcluded(spanColumns, keptOnConflict)}`,
  );
  await ctx.sql.run(tx, rollUpTracesSql(ctx.sql), [ctx.projectId, ids, ...range, now, now]);
  await rollUpTraceModels(ctx, tx, ids, range, !newTraces);
  return { spans: spans.length, traceIds };
}
