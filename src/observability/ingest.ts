// The one write path of spans. Every source (legacy JSON, OTLP over HTTP or gRPC, the evaluation
// runners) maps what it receives to SpanRecords and calls `writeSpans` (the runners `spanWriter`,
// to store them with their own rows), which stores them and keeps the Trace roll-ups current in
// the same transaction.
//
// Raw SQL on purpose: an upsert per row through Prisma costs a round trip through its query
// compiler each, while one multi-row `INSERT … ON CONFLICT DO UPDATE` per few hundred spans is
// an order of magnitude faster (docs/observability.md#measurements). The SQL is SQLite's;
// docs/observability.md#postgresql-port lists what a PostgreSQL port changes.
import type { RequestContext } from '../shared/context.js';
import { type BulkSql, jsonText, sqlDate, type SqlValue, type Tx, updateFromExcluded } from '../shared/sql.js';
import { costSumSql, roundCost } from '../shared/money.js';
import { priceList } from '../pricing/operations.js';
import type { PriceList } from '../pricing/prices.js';
import { nanosToDate, secondsBetween } from '../shared/time.js';

export const spanKinds = ['LLM', 'CHAIN', 'TOOL', 'RETRIEVER', 'EMBEDDING', 'AGENT', 'WORKFLOW', 'RERANKER', 'GUARDRAIL', 'EVALUATOR', 'UNKNOWN'] as const;
export type SpanKind = (typeof spanKinds)[number];

/**
 * The environment of the spans Assay's own evaluation runs write (the calls of variants and
 * evaluators): searches and metrics leave those out unless asked (docs/observability.md#assays-own-calls).
 */
export const EVALUATION_ENVIRONMENT = 'assay-evaluation';

export const spanStatuses = ['UNSET', 'OK', 'ERROR'] as const;
export type SpanStatus = (typeof spanStatuses)[number];

/** Any JSON value, as stored in a Json column. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * One span, already normalised by its source. Times are nanoseconds since the epoch and
 * `endTimeUnixNano >= startTimeUnixNano` (the source rejects or repairs other spans); the Date
 * columns and the latency are derived from them here. Absent optional fields are stored as null.
 */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  /** The parent's span id in the same trace; it may arrive later, or never. */
  parentSpanId: string | null;
  name: string;
  spanKind: SpanKind;
  statusCode: SpanStatus;
  statusMessage?: string | null;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  inputs?: JsonValue;
  outputs?: JsonValue;
  internals?: JsonValue;
  config?: JsonValue;
  environment?: string | null;
  userId?: string | null;
  sessionId?: string | null;
  appId?: string | null;
  variantId?: string | null;
  variantName?: string | null;
  variantRevision?: number | null;
  model?: string | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  totalTokens?: number | null;
  /** Prompt tokens read from the provider's cache (included in promptTokens). */
  cachedTokens?: number | null;
  /**
   * USD, as the client reported it. When absent, `writeSpans` computes it from the token usage
   * and the project's price table (src/pricing) where the model has a price.
   */
  cost?: number | null;
  /**
   * Where a given `cost` came from: the client (reported, the default) or Assay's own pricing of
   * the usage (computed: the spans of calls an evaluation makes, priced with the same price list).
   */
  costSource?: 'reported' | 'computed' | null;
  /** What the client sent, kept losslessly. */
  attributes: { [key: string]: JsonValue };
  events?: JsonValue;
  links?: JsonValue;
  resource?: JsonValue;
  scope?: JsonValue;
}

export interface WriteSummary {
  /** Distinct spans stored (a span sent twice in one call is stored once, the last copy winning). */
  spans: number;
  /** The traces touched, in first-seen order; their roll-ups are current. */
  traceIds: string[];
}

/** The SpanRecord fields stored as JSON text. */
type JsonField = 'inputs' | 'outputs' | 'internals' | 'config' | 'attributes' | 'events' | 'links' | 'resource' | 'scope';

/**
 * A SpanRecord ready for its row: JSON fields as JSON text, and the derived time columns (as SQL
 * text) and latency. OTLP ingestion makes these on its decoding thread (otlp/decoder.ts), so the
 * thread that writes does no JSON or date work.
 */
export type SerializedSpanRecord = Omit<SpanRecord, JsonField> & { [K in JsonField]: string | null } & {
  serialized: true;
  startTime: string;
  endTime: string;
  latency: number;
};

/** A span as writeSpans takes it: plain, or already serialised. */
export type AnySpanRecord = SpanRecord | SerializedSpanRecord;

/** `record` with its JSON fields as text; `text` may share the work for values spans have in common. */
export function serializeSpanRecord(record: AnySpanRecord, text: (value: unknown) => string | null = jsonText): SerializedSpanRecord {
  return 'serialized' in record ? record : serializeOwnSpanRecord({ ...record }, text);
}

/**
 * `serializeSpanRecord` for a record no one else holds (one the mapper just made): the record
 * itself becomes the answer. Copying its forty fields was a seventh of the decoding thread's time.
 */
export function serializeOwnSpanRecord(record: SpanRecord, text: (value: unknown) => string | null = jsonText): SerializedSpanRecord {
  const { inputs, outputs, internals, config, attributes, events, links, resource, scope, startTimeUnixNano, endTimeUnixNano } = record;
  const serialized = record as unknown as SerializedSpanRecord;
  serialized.inputs = jsonText(inputs);
  serialized.outputs = jsonText(outputs);
  serialized.internals = jsonText(internals);
  serialized.config = jsonText(config);
  serialized.attributes = jsonText(attributes) ?? '{}';
  serialized.events = jsonText(events);
  serialized.links = jsonText(links);
  serialized.resource = text(resource);
  serialized.scope = text(scope);
  serialized.serialized = true;
  serialized.startTime = sqlDate(nanosToDate(startTimeUnixNano));
  serialized.endTime = sqlDate(nanosToDate(endTimeUnixNano));
  serialized.latency = secondsBetween(startTimeUnixNano, endTimeUnixNano);
  return serialized;
}

/** A `jsonText` that turns each distinct object into text once: a request's spans share their resource and scope. */
export function sharedJsonText(): (value: unknown) => string | null {
  const texts = new Map<unknown, string | null>();
  return (value) => {
    let text = texts.get(value);
    if (text === undefined) texts.set(value, (text = jsonText(value)));
    return text;
  };
}

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

// The roll-ups of a batch's traces, each recomputed from all its stored spans, in one statement
// (the trace ids come as one JSON array parameter). The root is the earliest top-level span: no
// parent, its own parent, or a parent never stored. Only spans that start no later than the
// earliest parentless one can be that root, so the parent look-up runs for those few rather than
// for every span of a large trace. A trace whose spans all sit in a parent cycle (a faulty
// client) falls back to its earliest span. The root is found in a step of its own (a
// materialised CTE), once per trace: PostgreSQL would otherwise test it as a join condition, once
// per span of the trace.
// `WHERE true` is SQLite's documented way to parse an upsert after INSERT … SELECT … JOIN.
/**
 * Whether span `s`'s parent is missing from its trace (`agg`). SQLite looks each parent up by the
 * primary key; PostgreSQL hashes the trace's span ids once (NOT IN), a plan it takes even on a
 * young table without statistics, where it otherwise picked the smaller parent index and scanned
 * the trace per span (docs/database.md#raw-sql).
 */
function parentMissing(sql: BulkSql): string {
  return sql.provider === 'postgresql'
    ? `s."parentSpanId" NOT IN (SELECT p."spanId" FROM "Span" AS p WHERE p."projectId" = agg."projectId" AND p."traceId" = agg."traceId"${spansWithin(sql, 'p.', 'agg')})`
    : `NOT EXISTS (SELECT 1 FROM "Span" AS p WHERE p."projectId" = s."projectId" AND p."traceId" = s."traceId" AND p."spanId" = s."parentSpanId")`;
}

/**
 * On PostgreSQL, where "Span" is partitioned by start time (docs/database.md#span-partitions): the
 * bounds that keep a read of these traces' spans to the partitions holding them. `agg` bounds the
 * spans of its trace; `null` takes them from two `?` parameters (`spanRange`).
 */
function spansWithin(sql: BulkSql, alias: string, agg: string | null): string {
  if (sql.provider !== 'postgresql') return '';
  const [from, to] = agg ? [`${agg}."startTime"`, `${agg}."endTime"`] : ['?::timestamp(3)', '?::timestamp(3)'];
  return ` AND ${alias}"startTime" >= ${from} AND ${alias}"startTime" <= ${to}`;
}

const rollUpTracesSql = (sql: BulkSql) => `
WITH agg AS MATERIALIZED (
  SELECT "projectId", "traceId",
    MIN("startTime") AS "startTime", MAX("endTime") AS "endTime",
    MIN("startTimeUnixNano") AS "startNano", MAX("endTimeUnixNano") AS "endNano",
    COUNT(*) AS "spanCount",
    SUM(CASE WHEN "statusCode" = 'ERROR' THEN 1 ELSE 0 END) AS "errorCount",
    SUM("promptTokens") AS "promptTokens", SUM("completionTokens") AS "completionTokens",
    SUM("totalTokens") AS "totalTokens", ${costSumSql('"cost"', sql)} AS "cost",
    MIN(CASE WHEN "parentSpanId" IS NULL THEN "startTimeUnixNano" END) AS "firstParentless"
  FROM "Span"
  WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')})${spansWithin(sql, '', null)}
  GROUP BY "projectId", "traceId"
),
rooted AS MATERIALIZED (
  SELECT agg.*, COALESCE(
    (
      SELECT s."spanId" FROM "Span" AS s
      WHERE s."projectId" = agg."projectId" AND s."traceId" = agg."traceId"${spansWithin(sql, 's.', 'agg')} AND (
        s."parentSpanId" IS NULL OR (
          s."startTimeUnixNano" <= COALESCE(agg."firstParentless", s."startTimeUnixNano")
          AND (s."parentSpanId" = s."spanId" OR ${parentMissing(sql)})
        )
      )
      ORDER BY s."startTimeUnixNano", s."spanId"
      LIMIT 1
    ),
    (
      SELECT s."spanId" FROM "Span" AS s
      WHERE s."projectId" = agg."projectId" AND s."traceId" = agg."traceId"${spansWithin(sql, 's.', 'agg')}
      ORDER BY s."startTimeUnixNano", s."spanId"
      LIMIT 1
    )
  ) AS "rootId"
  FROM agg
)
INSERT INTO "Trace" ("projectId", "traceId", "rootSpanId", "name", "startTime", "endTime", "latency",
  "spanCount", "errorCount", "promptTokens", "completionTokens", "totalTokens", "cost", "spanKind", "statusCode",
  "environment", "userId", "sessionId", "appId", "variantId", "variantName", "createdAt", "updatedAt")
SELECT agg."projectId", agg."traceId", root."spanId", root."name", agg."startTime", agg."endTime",
  (agg."endNano" - agg."startNano") / 1e9,
  agg."spanCount", agg."errorCount", agg."promptTokens", agg."completionTokens", agg."totalTokens", agg."cost",
  root."spanKind", CASE WHEN agg."errorCount" > 0 THEN 'ERROR' ELSE root."statusCode" END,
  root."environment", root."userId", root."sessionId", root."appId", root."variantId", root."variantName", ${sql.timestamp('?')}, ${sql.timestamp('?')}
FROM rooted AS agg
LEFT JOIN "Span" AS root ON root."projectId" = agg."projectId" AND root."traceId" = agg."traceId" AND root."spanId" = agg."rootId"${spansWithin(sql, 'root.', 'agg')}
WHERE true
ON CONFLICT ("projectId", "traceId") DO UPDATE SET
  "rootSpanId" = excluded."rootSpanId", "name" = excluded."name",
  "startTime" = excluded."startTime", "endTime" = excluded."endTime", "latency" = excluded."latency",
  "spanCount" = excluded."spanCount", "errorCount" = excluded."errorCount",
  "promptTokens" = excluded."promptTokens", "completionTokens" = excluded."completionTokens",
  "totalTokens" = excluded."totalTokens", "cost" = excluded."cost",
  "spanKind" = excluded."spanKind", "statusCode" = excluded."statusCode", "variantName" = excluded."variantName",
  "environment" = excluded."environment", "userId" = excluded."userId", "sessionId" = excluded."sessionId",
  "appId" = excluded."appId", "variantId" = excluded."variantId", "updatedAt" = excluded."updatedAt"`;

/**
 * PostgreSQL: where the spans of `ids` (a JSON array) lie in "Span", from their traces' roll-ups
 * (`stored`), widened to the start times of spans about to be written (`range`: the parameters
 * of `spansWithin`). Nothing on SQLite, whose table is not partitioned.
 */
async function spanRange(
  ctx: RequestContext,
  tx: Tx,
  ids: string,
  batch: { first: string; last: string } | null,
): Promise<{ stored: [string, string] | null; range: SqlValue[] }> {
  if (ctx.sql.provider !== 'postgresql') return { stored: null, range: [] };
  const [row] = await ctx.sql.query<{ from: string | null; to: string | null; first: string | null; last: string | null }>(
    tx,
    `SELECT MIN("startTime")::text AS "from", MAX("endTime")::text AS "to",
       LEAST(MIN("startTime"), ?::timestamp(3))::text AS "first", GREATEST(MAX("endTime"), ?::timestamp(3))::text AS "last"
     FROM "Trace" WHERE "projectId" = ? AND "traceId" IN (${ctx.sql.jsonValues('?')})`,
    [batch?.first ?? null, batch?.last ?? null, ctx.projectId, ids],
  );
  return { stored: row?.from && row.to ? [row.from, row.to] : null, range: [row?.first ?? null, row?.last ?? null] };
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

/** What a deletion took away: spans, and the traces left without any. */
export interface DeletedSpans {
  spans: number;
  traces: number;
}

/**
 * Deletes the spans matching `where` (SQL over "Span", with `params`) among `traceIds` of the
 * caller's project, in one transaction under the traces' locks: the traces left without spans go,
 * the others are rolled up again from their remaining spans (docs/observability.md#deleting).
 */
export async function deleteSpans(ctx: RequestContext, traceIds: readonly string[], where: string, params: readonly SqlValue[]): Promise<DeletedSpans> {
  if (traceIds.length === 0) return { spans: 0, traces: 0 };
  const { sql, projectId } = ctx;
  const ids = JSON.stringify(traceIds);
  return sql.transaction(async (tx) => {
    await sql.lockKeys(
      tx,
      traceIds.map((traceId) => `trace:${projectId}:${traceId}`),
    );
    const { range } = await spanRange(ctx, tx, ids, null);
    const spans = await sql.run(tx, `DELETE FROM "Span" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')}) AND ${where}`, [
      projectId,
      ids,
      ...params,
    ]);
    const traces = await sql.run(
      tx,
      `DELETE FROM "Trace" WHERE "projectId" = ? AND "traceId" IN (${sql.jsonValues('?')})
         AND NOT EXISTS (SELECT 1 FROM "Span" AS s WHERE s."projectId" = "Trace"."projectId" AND s."traceId" = "Trace"."traceId")`,
      [projectId, ids],
    );
    const now = new Date();
    await sql.run(tx, rollUpTracesSql(sql), [projectId, ids, ...range, now, now]);
    return { spans, traces };
  });
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
  return summary;
}

/**
 * `writeSpans` for a caller that writes other rows in the same transaction (an evaluation's
 * scenarios and the traces of their calls), so that both commit or neither does. The function
 * answered must run inside `ctx.db.$transaction`; the price list it needs is read here, because
 * no other query can run on the connection while that transaction holds it.
 */
export async function spanWriter(ctx: RequestContext): Promise<SpanStore> {
  const prices = await priceList(ctx);
  return (tx, records) => storeSpans(ctx, tx, records, prices);
}

async function storeSpans(ctx: RequestContext, tx: Tx, records: readonly AnySpanRecord[], prices: PriceList): Promise<WriteSummary> {
  // One row per key, the last copy winning (PostgreSQL refuses to upsert a row twice in one statement).
  const latest = new Map<string, AnySpanRecord>();
  for (const record of records) latest.set(`${record.traceId}\u0000${record.spanId}`, record);
  const text = sharedJsonText();
  const spans = [...latest.values()].map((record) => serializeSpanRecord(record, text));
  const traceIds = [...new Set(spans.map((span) => span.traceId))];
  if (spans.length === 0) return { spans: 0, traceIds: [] };

  // PostgreSQL: every span's day must have its partition before the insert (partitions.ts).
  await ctx.spanPartitions.ensureFor(
    tx,
    spans.map((span) => span.startTime),
  );
  // A batch's roll-up must see every other batch of its traces (PostgreSQL runs them at once).
  await ctx.sql.lockKeys(
    tx,
    traceIds.map((traceId) => `trace:${ctx.projectId}:${traceId}`),
  );
  const ids = JSON.stringify(traceIds);
  const { stored, range } = await spanRange(ctx, tx, ids, batchTimes(spans));
  if (stored) await deleteMovedSpans(ctx, tx, spans, stored);
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
  return { spans: spans.length, traceIds };
}
