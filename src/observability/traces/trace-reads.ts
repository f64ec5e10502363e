// Reads of traces and spans, shared by REST and GraphQL. A trace's tree always comes from one
// query of its spans, indexed in memory (span-tree.ts).
import DataLoader from 'dataloader';
import { perRequest, type RequestContext } from '../../shared/context.js';
import { Prisma } from '../../shared/db.js';
import { NotFoundError } from '../../shared/errors.js';
import type { SpanKind } from '../ingestion/span-record.js';
import type { SpanReadType } from './inputs.js';
import { spanJson, spanJsonSelect, spanTreeJson, traceTotalsSelect, type SpanJson, type SpanJsonSource, type TraceTotals } from './responses.js';
import { spanTextColumns, stringifySpanTextTree, stringifySpanTree, type SpanTextRow } from './span-json-text.js';
import { indexSpans, type SpanIndex } from './span-tree.js';

export type SpanRow = Prisma.SpanGetPayload<object>;

/** Start order, the span id breaking ties, so every read lists spans the same way. */
const spanOrder = [{ startTimeUnixNano: 'asc' }, { spanId: 'asc' }] satisfies Prisma.SpanOrderByWithRelationInput[];

/**
 * PostgreSQL: the start times the spans of these traces lie between, from their roll-ups, so that
 * a read of their spans looks into their partitions only (docs/database.md#span-partitions).
 * Nothing on SQLite, nor for traces without a roll-up.
 */
async function spanTimes(ctx: RequestContext, traceIds: readonly string[], rollUps?: readonly TraceTimes[]): Promise<Prisma.SpanWhereInput> {
  if (ctx.sql.provider !== 'postgresql') return {};
  let from: Date | null;
  let to: Date | null;
  if (rollUps) {
    // The caller read the roll-ups already: the same MIN and MAX, with no read of their own.
    from = rollUps.length === 0 ? null : new Date(Math.min(...rollUps.map((trace) => trace.startTime.getTime())));
    to = rollUps.length === 0 ? null : new Date(Math.max(...rollUps.map((trace) => trace.endTime.getTime())));
  } else {
    const range = await ctx.db.trace.aggregate({
      where: { projectId: ctx.projectId, traceId: { in: [...traceIds] } },
      _min: { startTime: true },
      _max: { endTime: true },
    });
    from = range._min.startTime;
    to = range._max.endTime;
  }
  return from && to ? { startTime: { gte: from, lte: to } } : {};
}

/** What bounds a read of a trace's spans to their partitions: its roll-up's times. */
type TraceTimes = { startTime: Date; endTime: Date };

/** All spans of one trace in the caller's project, in start order. */
async function traceSpans<S extends Prisma.SpanSelect>(ctx: RequestContext, traceId: string, select: S) {
  return ctx.db.span.findMany({ select, where: { projectId: ctx.projectId, traceId, ...(await spanTimes(ctx, [traceId])) }, orderBy: spanOrder });
}

/**
 * The span with this id. Span ids are unique within a trace only, so with no `traceId` an id found
 * in several traces resolves to the span that started last (the trace id breaking ties): the most
 * recent run of a client that reuses ids.
 */
export async function getSpan(ctx: RequestContext, spanId: string, traceId?: string): Promise<SpanRow> {
  const span = await ctx.db.span.findFirst({
    where: { projectId: ctx.projectId, spanId, ...(traceId !== undefined ? { traceId } : {}) },
    orderBy: [{ startTimeUnixNano: 'desc' }, { traceId: 'desc' }],
  });
  if (!span) throw new NotFoundError('Span', spanId);
  return span;
}

/** The sums of these traces (their roll-up rows), which their roots show where they reported none (responses.ts spanFigures). */
async function traceTotals(ctx: RequestContext, traceIds: readonly string[]): Promise<Map<string, TraceTotals>> {
  const rows = await ctx.db.trace.findMany({ select: traceTotalsSelect, where: { projectId: ctx.projectId, traceId: { in: [...traceIds] } } });
  return new Map(rows.map((row) => [row.traceId, row]));
}

async function oneTraceTotals(ctx: RequestContext, traceId: string): Promise<TraceTotals | null> {
  return ctx.db.trace.findFirst({ select: traceTotalsSelect, where: { projectId: ctx.projectId, traceId } });
}

/** Spans of any traces in the contract's shape, alone (`children: null`): a listing. */
export async function spanJsons(ctx: RequestContext, spans: readonly SpanJsonSource[]): Promise<SpanJson[]> {
  const totals = await traceTotals(ctx, [...new Set(spans.map((span) => span.traceId))]);
  return spans.map((span) => spanJson(span, null, totals.get(span.traceId)));
}

const spanJsonColumns = Object.keys(spanJsonSelect)
  .map((column) => `"${column}"`)
  .join(', ');
const traceTotalsColumns = Object.keys(traceTotalsSelect)
  .map((column) => `"${column}"`)
  .join(', ');

/**
 * A trace's spans and totals on PostgreSQL, read on the pool (BulkSql.all): Prisma's conversion
 * of every value was half of a 1,000-span read (docs/database.md#trace-reads). The totals come
 * first because their time range bounds the span read to the trace's own day partitions
 * (docs/database.md#span-partitions); a bound PostgreSQL only learns at execution would still
 * plan every partition.
 */
async function postgresTraceSpans(ctx: RequestContext, traceId: string): Promise<[SpanIndex<SpanJsonSource>, TraceTotals | null]> {
  type Raw = Omit<SpanJsonSource, 'startTimeUnixNano' | 'startTime' | 'endTime'> & {
    startTimeUnixNano: string | bigint;
    startTime: string | Date;
    endTime: string | Date;
  };
  const trace = await ctx.sql.first<TraceTotals & { startTime: string; endTime: string }>(
    `SELECT ${traceTotalsColumns}, "startTime", "endTime" FROM "Trace" WHERE "projectId" = ? AND "traceId" = ?`,
    [ctx.projectId, traceId],
  );
  const bounded = trace ? ` AND "startTime" >= ${ctx.sql.timestamp('?')} AND "startTime" <= ${ctx.sql.timestamp('?')}` : '';
  const rows = await ctx.sql.all<Raw>(
    `SELECT ${spanJsonColumns} FROM "Span" WHERE "projectId" = ? AND "traceId" = ?${bounded} ORDER BY "startTimeUnixNano", "spanId"`,
    trace ? [ctx.projectId, traceId, trace.startTime, trace.endTime] : [ctx.projectId, traceId],
  );
  // Rows as Prisma reads them: int8 as BigInt, DateTimes (ISO text from `all`) as Dates.
  for (const row of rows) {
    row.startTimeUnixNano = BigInt(row.startTimeUnixNano);
    row.startTime = new Date(row.startTime);
    row.endTime = new Date(row.endTime);
  }
  return [indexSpans(rows as SpanJsonSource[]), trace ?? null];
}

/** GET /observability/traces/{id}: the root span with all descendants nested. */
export async function getTraceTree(ctx: RequestContext, traceId: string): Promise<SpanJson> {
  const index = indexSpans(await traceSpans(ctx, traceId, spanJsonSelect));
  const root = index.roots[0];
  if (!root) throw new NotFoundError('Trace', traceId);
  return spanTreeJson(index, root, await oneTraceTotals(ctx, traceId));
}

/**
 * GET /observability/traces/{id} as JSON text: the same answer as `stringifySpanTree(getTraceTree(…))`,
 * from one query whose rows carry each span's JSON made by SQLite (span-json-text.ts `spanTextColumns`),
 * so no span object is built and the JSON columns are not parsed and written again.
 */
export async function getTraceTreeText(ctx: RequestContext, traceId: string): Promise<string> {
  // PostgreSQL writes JSON with its own spacing, and jsonb in its own key order: there the text
  // is written from the spans (docs/database.md#trace-reads).
  if (ctx.sql.provider === 'postgresql') {
    const [index, totals] = await postgresTraceSpans(ctx, traceId);
    const root = index.roots[0];
    if (!root) throw new NotFoundError('Trace', traceId);
    return stringifySpanTree(spanTreeJson(index, root, totals));
  }
  const rows = await ctx.db.$queryRaw<SpanTextRow[]>`
    SELECT ${spanTextColumns} FROM "Span" AS s
    WHERE s."projectId" = ${ctx.projectId} AND s."traceId" = ${traceId}
    ORDER BY s."startTimeUnixNano", s."spanId"`;
  const index = indexSpans(rows);
  const root = index.roots[0];
  if (!root) throw new NotFoundError('Trace', traceId);
  return stringifySpanTextTree(index, root, await oneTraceTotals(ctx, traceId));
}

/** A span's subtree (one recursive query), with each span's JSON made by SQLite (span-json-text.ts `spanTextColumns`), in start order. */
async function subtreeSpanTexts(ctx: RequestContext, traceId: string, spanId: string): Promise<SpanTextRow[]> {
  return ctx.db.$queryRaw<SpanTextRow[]>`
    WITH RECURSIVE subtree("spanId") AS (
      SELECT ${spanId}
      UNION
      SELECT s."spanId" FROM "Span" AS s JOIN subtree ON s."parentSpanId" = subtree."spanId"
      WHERE s."projectId" = ${ctx.projectId} AND s."traceId" = ${traceId}
    )
    SELECT ${spanTextColumns} FROM "Span" AS s
    WHERE s."projectId" = ${ctx.projectId} AND s."traceId" = ${traceId} AND s."spanId" IN (SELECT "spanId" FROM subtree)
    ORDER BY s."startTimeUnixNano", s."spanId"`;
}

/** GET /observability/spans/{id} as JSON text: `generation`, the span with its subtree; `span`, the span alone. */
export async function getSpanJsonText(ctx: RequestContext, spanId: string, type: SpanReadType, traceId?: string): Promise<string> {
  const span = await getSpan(ctx, spanId, traceId);
  const totals = await oneTraceTotals(ctx, span.traceId);
  if (type === 'span') return JSON.stringify(spanJson(span, null, totals));
  if (ctx.sql.provider === 'postgresql') {
    const spans = indexSpans(await traceSpans(ctx, span.traceId, spanJsonSelect));
    return stringifySpanTree(spanTreeJson(spans, spans.byId.get(spanId) ?? span, totals));
  }
  const index = indexSpans(await subtreeSpanTexts(ctx, span.traceId, spanId));
  const top = index.byId.get(spanId);
  // Gone between the two reads (its project deleted): the span as first read, no children.
  return top ? stringifySpanTextTree(index, top, totals) : JSON.stringify(spanJson(span, [], totals));
}

const traceSpansLoaderKey = Symbol('observability.traceSpans');

/**
 * Per request: each trace's spans loaded once (traces asked for together in one query) and
 * indexed by parent, so GraphQL `children`, `parent`, `root` and `roots` cost no query per span.
 */
export function traceSpansLoader(ctx: RequestContext): DataLoader<string, SpanIndex<SpanRow>> {
  return perRequest(
    ctx,
    traceSpansLoaderKey,
    () =>
      new DataLoader<string, SpanIndex<SpanRow>>(
        async (traceIds) => {
          const rows = await listTracesSpans(ctx, traceIds);
          const byTrace = new Map<string, SpanRow[]>();
          for (const row of rows) {
            const list = byTrace.get(row.traceId);
            if (list) list.push(row);
            else byTrace.set(row.traceId, [row]);
          }
          return traceIds.map((traceId) => indexSpans(byTrace.get(traceId) ?? []));
        },
        { maxBatchSize: 200 },
      ),
  );
}

const traceTotalsLoaderKey = Symbol('observability.traceTotals');

/** Per request: traces' sums, loaded together, for GraphQL `Span.metadata` (responses.ts spanFigures). */
export function traceTotalsLoader(ctx: RequestContext): DataLoader<string, TraceTotals | null> {
  return perRequest(
    ctx,
    traceTotalsLoaderKey,
    () =>
      new DataLoader<string, TraceTotals | null>(
        async (traceIds) => {
          const totals = await traceTotals(ctx, traceIds);
          return traceIds.map((traceId) => totals.get(traceId) ?? null);
        },
        { maxBatchSize: 200 },
      ),
  );
}

type TraceQuery = Omit<Prisma.TraceFindFirstArgs, 'where'>;

export async function getTrace<Q extends TraceQuery>(ctx: RequestContext, traceId: string, query?: Q) {
  const trace = await ctx.db.trace.findFirst({ ...query, where: { projectId: ctx.projectId, traceId } });
  if (!trace) throw new NotFoundError('Trace', traceId);
  return trace;
}

/** The stored traces among `traceIds` (their roll-ups); those not stored are absent. */
export function getTraces(ctx: RequestContext, traceIds: readonly string[]) {
  return ctx.db.trace.findMany({ where: { projectId: ctx.projectId, traceId: { in: [...traceIds] } } });
}

/**
 * Who and where of the stored traces among `traceIds` (their roll-ups' user, session and
 * environment), for what names traces from elsewhere: Langfuse's scores show their trace's
 * (docs/langfuse.md#field-mapping). Traces not stored yet are absent.
 */
export function traceOwners(ctx: RequestContext, traceIds: readonly string[]) {
  if (traceIds.length === 0) return Promise.resolve([]);
  return ctx.db.trace.findMany({
    select: { traceId: true, userId: true, sessionId: true, environment: true },
    where: { projectId: ctx.projectId, traceId: { in: [...new Set(traceIds)] } },
  });
}

/** A session's traces, earliest first, at most `take` (online evaluation's session targets). */
export function listSessionTraces(ctx: RequestContext, sessionId: string, take: number) {
  return ctx.db.trace.findMany({ where: { projectId: ctx.projectId, sessionId }, orderBy: { startTime: 'asc' }, take });
}

/**
 * The spans of several traces in one query, flat in start order (online evaluation's batches of
 * jobs). `rollUps`: the roll-ups of `traceIds` as `getTraces` answered them, when the caller has
 * them (PostgreSQL then reads no range first).
 */
export async function listTracesSpans(ctx: RequestContext, traceIds: readonly string[], rollUps?: readonly TraceTimes[]): Promise<SpanRow[]> {
  if (traceIds.length === 0) return [];
  return ctx.db.span.findMany({
    where: { projectId: ctx.projectId, traceId: { in: [...traceIds] }, ...(await spanTimes(ctx, traceIds, rollUps)) },
    orderBy: spanOrder,
  });
}

/** The spans named by (trace id, span id) pairs, in one query. */
export function spansByKeys(ctx: RequestContext, keys: readonly { traceId: string; spanId: string }[]): Promise<SpanRow[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return ctx.db.span.findMany({ where: { projectId: ctx.projectId, OR: keys.map(({ traceId, spanId }) => ({ traceId, spanId })) } });
}

/** A trace's spans, flat in start order (a page of them when `query` carries cursor and take). */
export async function listTraceSpans<Q extends Omit<Prisma.SpanFindManyArgs, 'where' | 'orderBy'>>(ctx: RequestContext, traceId: string, query?: Q) {
  return ctx.db.span.findMany({ ...query, where: { projectId: ctx.projectId, traceId, ...(await spanTimes(ctx, [traceId])) }, orderBy: spanOrder });
}

/** A span's direct children, in start order (a page of them when `query` carries cursor and take). */
export async function listChildSpans<Q extends Omit<Prisma.SpanFindManyArgs, 'where' | 'orderBy'>>(
  ctx: RequestContext,
  span: { traceId: string; spanId: string },
  query?: Q,
) {
  return ctx.db.span.findMany({
    ...query,
    where: { projectId: ctx.projectId, traceId: span.traceId, parentSpanId: span.spanId, NOT: { spanId: span.spanId } },
    orderBy: spanOrder,
  });
}

/**
 * The cost of every span of `spanKind` in the caller's traces `traceIds`, with the value of the
 * attribute `attribute` (null when absent): what an evaluation adds up per evaluator config from
 * the EVALUATOR spans its runner recorded (evaluations/operations.ts, `evaluatorCost`). The trace
 * ids go in as one JSON parameter, so an evaluation of any size is one query.
 */
export async function spanCostsByAttribute(
  ctx: RequestContext,
  traceIds: readonly string[],
  spanKind: SpanKind,
  attribute: string,
): Promise<{ cost: number | null; attribute: unknown }[]> {
  return ctx.sql.query(
    ctx.db,
    `SELECT s."cost" AS "cost", ${ctx.sql.jsonMember('s."attributes"', attribute)} AS "attribute" FROM "Span" s
     WHERE s."projectId" = ? AND s."spanKind" = ? AND s."traceId" IN (${ctx.sql.jsonValues('?')})`,
    [ctx.projectId, spanKind, JSON.stringify(traceIds)],
  );
}

/**
 * GraphQL `Trace.outline`: what a tree and a timeline need of every span of a trace, in start order,
 * as parallel lists (docs/ui.md#the-trace-page): one query of seven light columns, no payload, so a
 * trace of 50,000 spans is one small answer and no client cache holds 50,000 records. `parents`
 * are positions in the same lists, null for a top-level span (no parent, itself, or one never
 * stored). A parent cycle (only a faulty client sends one) is left as sent: the UI cuts it.
 */
export interface TraceOutline {
  spanIds: string[];
  parents: (number | null)[];
  names: string[];
  kinds: string[];
  statuses: string[];
  offsets: number[];
  latencies: number[];
}

interface OutlineRow {
  spanId: string;
  parentSpanId: string | null;
  name: string;
  spanKind: string;
  statusCode: string;
  offset: number;
  latency: number;
}

export async function traceOutline(ctx: RequestContext, traceId: string): Promise<TraceOutline> {
  // Raw rows, offsets computed by SQLite from the exact nanosecond integers: the model mapping and
  // BigInt arithmetic of 50,000 rows were most of this read's time (bench/ui.ts).
  const rows = await ctx.db.$queryRaw<OutlineRow[]>`
    SELECT s."spanId" AS "spanId", s."parentSpanId" AS "parentSpanId", s."name" AS "name", s."spanKind" AS "spanKind",
      s."statusCode" AS "statusCode", s."latency" AS "latency",
      (s."startTimeUnixNano" - (SELECT MIN(f."startTimeUnixNano") FROM "Span" AS f WHERE f."projectId" = ${ctx.projectId} AND f."traceId" = ${traceId})) / 1e9 AS "offset"
    FROM "Span" AS s
    WHERE s."projectId" = ${ctx.projectId} AND s."traceId" = ${traceId}
    ORDER BY s."startTimeUnixNano", s."spanId"`;
  const position = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) position.set(rows[i].spanId, i);
  const outline: TraceOutline = { spanIds: [], parents: [], names: [], kinds: [], statuses: [], offsets: [], latencies: [] };
  for (const row of rows) {
    const parent = row.parentSpanId === null || row.parentSpanId === row.spanId ? undefined : position.get(row.parentSpanId);
    outline.spanIds.push(row.spanId);
    outline.parents.push(parent ?? null);
    outline.names.push(row.name);
    outline.kinds.push(row.spanKind);
    outline.statuses.push(row.statusCode);
    outline.offsets.push(Number(row.offset));
    outline.latencies.push(Number(row.latency));
  }
  return outline;
}

/** What a run recorded from code reads of its cases' traces (docs/experiments.md): each stored trace's cost, latency and root span. */
export async function traceFigures(
  ctx: RequestContext,
  traceIds: readonly string[],
): Promise<Map<string, { cost: number | null; latency: number; rootSpanId: string | null }>> {
  if (traceIds.length === 0) return new Map();
  const rows = await ctx.db.trace.findMany({
    select: { traceId: true, cost: true, latency: true, rootSpanId: true },
    where: { projectId: ctx.projectId, traceId: { in: [...new Set(traceIds)] } },
  });
  return new Map(rows.map((row) => [row.traceId, { cost: row.cost, latency: row.latency, rootSpanId: row.rootSpanId }]));
}

/** The outputs of these spans where stored, keyed `<trace id>:<span id>`. */
export async function spanOutputs(ctx: RequestContext, spans: readonly { traceId: string; spanId: string }[]): Promise<Map<string, Prisma.JsonValue>> {
  if (spans.length === 0) return new Map();
  const rows = await ctx.db.span.findMany({
    select: { traceId: true, spanId: true, outputs: true },
    where: { projectId: ctx.projectId, OR: spans.map(({ traceId, spanId }) => ({ traceId, spanId })) },
  });
  return new Map(rows.map((row) => [`${row.traceId}:${row.spanId}`, row.outputs]));
}
