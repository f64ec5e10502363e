// Sessions (docs/sessions.md): the traces of a project that share a session id, derived from the
// Trace roll-ups on every read (no table of their own, so a session goes when its traces go). A
// listing takes two steps: the page's session ids in order of their latest trace, from the
// (projectId, sessionId, startTime) index alone, then the figures of those few sessions.
import { type ScoreRow } from '../../scores/operations.js';
import { scoresOf } from '../../scores/score-reads.js';
import type { RequestContext } from '../../shared/context.js';
import { NotFoundError } from '../../shared/errors.js';
import { costSumSql } from '../../shared/money.js';
import type { JsonValue } from '../ingestion/span-record.js';
import { traceWhere, Where } from '../search/filters.js';
import { decodeCursor, encodeCursor, keysetCondition, pageOf, pageSize, searchTraces, type Page, type PageArgs, type TraceRow } from '../search/listings.js';

export interface SessionFilter {
  /** Sessions with a trace that started at or after this time. */
  startedAfter?: Date;
  /** Sessions with a trace that started at or before this time. */
  startedBefore?: Date;
  /** Sessions with a trace of this end user. */
  userId?: string;
  /** Sessions with a trace in this environment. */
  environment?: string;
  /** Part of the session id, ignoring ASCII case. */
  search?: string;
  /** Text in the inputs or outputs of any span of the session, ignoring ASCII case. */
  text?: string;
}

/** What a trace took in and gave out: its root span's inputs and outputs. */
export interface TraceContent {
  inputs: JsonValue | null;
  outputs: JsonValue | null;
}

export interface SessionRow {
  sessionId: string;
  /** When its first trace started. */
  firstSeen: Date;
  /** When its latest trace started (the order of listings). */
  lastSeen: Date;
  traceCount: number;
  /** Failed spans over all its traces. */
  errorCount: number;
  /** Traces with a failed span. */
  failedTraceCount: number;
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
  cost: number | null;
  /** The end user and environment of its first trace. */
  userId: string | null;
  environment: string | null;
  firstTraceId: string;
  lastTraceId: string;
  /** The first trace's input and the latest trace's output (their root spans'). */
  firstInput: JsonValue | null;
  lastOutput: JsonValue | null;
  /** The scores of the session itself (target "session"), oldest first. */
  scores: ScoreRow[];
}

/** One turn of a session's conversation: a trace, with its root's input and output. */
export interface SessionTurn {
  trace: TraceRow;
  input: JsonValue | null;
  output: JsonValue | null;
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

const asNumber = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** The roots' contents of these traces, by trace id. */
export async function traceContents(ctx: RequestContext, traces: readonly Pick<TraceRow, 'traceId' | 'rootSpanId' | 'startTime' | 'endTime'>[]) {
  const rooted = traces.filter((trace) => trace.rootSpanId !== null);
  if (rooted.length === 0) return new Map<string, TraceContent>();
  const spans = await ctx.db.span.findMany({
    select: { traceId: true, inputs: true, outputs: true },
    where: {
      projectId: ctx.projectId,
      // The start bounds keep PostgreSQL's read to the partitions of each trace (docs/database.md#span-partitions).
      OR: rooted.map((trace) => ({ traceId: trace.traceId, spanId: trace.rootSpanId!, startTime: { gte: trace.startTime, lte: trace.endTime } })),
    },
  });
  return new Map(spans.map((span) => [span.traceId, { inputs: span.inputs as JsonValue | null, outputs: span.outputs as JsonValue | null }]));
}

/** Sessions whose figures one statement reads (one parameter each). */
const FIGURES_BATCH = 500;

/** The figures of these sessions (those with no trace are absent), in no order. */
async function sessionFigures(ctx: RequestContext, sessionIds: readonly string[]): Promise<SessionRow[]> {
  if (sessionIds.length === 0) return [];
  if (sessionIds.length > FIGURES_BATCH) {
    const batches = Array.from({ length: Math.ceil(sessionIds.length / FIGURES_BATCH) }, (_, i) =>
      sessionIds.slice(i * FIGURES_BATCH, (i + 1) * FIGURES_BATCH),
    );
    return (await Promise.all(batches.map((batch) => sessionFigures(ctx, batch)))).flat();
  }
  const { sql } = ctx;
  const edge = (direction: 'ASC' | 'DESC') =>
    `(SELECT e."traceId" FROM "Trace" AS e WHERE e."projectId" = t."projectId" AND e."sessionId" = t."sessionId"
      ORDER BY e."startTime" ${direction}, e."traceId" ${direction} LIMIT 1)`;
  const rows = await sql.query<Record<string, unknown>>(
    ctx.db,
    `SELECT t."sessionId" AS "sessionId", MIN(t."startTime") AS "firstSeen", MAX(t."startTime") AS "lastSeen", COUNT(*) AS "traceCount",
       SUM(t."errorCount") AS "errorCount", SUM(CASE WHEN t."errorCount" > 0 THEN 1 ELSE 0 END) AS "failedTraceCount",
       SUM(t."promptTokens") AS "promptTokens", SUM(t."completionTokens") AS "completionTokens", SUM(t."totalTokens") AS "totalTokens",
       ${costSumSql('t."cost"', sql)} AS "cost", ${edge('ASC')} AS "firstTraceId", ${edge('DESC')} AS "lastTraceId"
     FROM "Trace" AS t
     WHERE t."projectId" = ? AND t."sessionId" IN (${sessionIds.map(() => '?').join(', ')})
     GROUP BY t."projectId", t."sessionId"`,
    // One parameter per id (a page holds at most 1000): PostgreSQL then reads each session through
    // the (projectId, sessionId, startTime) index, where a JSON array's unknown length led it to
    // scan the project's traces.
    [ctx.projectId, ...sessionIds],
  );
  const edgeIds = rows.flatMap((row) => [String(row.firstTraceId), String(row.lastTraceId)]);
  const traces = new Map(
    (
      await ctx.db.trace.findMany({
        select: { traceId: true, rootSpanId: true, startTime: true, endTime: true, userId: true, environment: true },
        where: { projectId: ctx.projectId, traceId: { in: [...new Set(edgeIds)] } },
      })
    ).map((trace) => [trace.traceId, trace]),
  );
  const contents = await traceContents(ctx, [...traces.values()]);
  const ids = rows.map((row) => String(row.sessionId));
  const scores = new Map((await scoresOf(ctx, 'sessionId', ids)).map((list, i) => [ids[i], list.filter((score) => score.target === 'session')]));
  return rows.map((row) => {
    const first = traces.get(String(row.firstTraceId));
    return {
      sessionId: String(row.sessionId),
      firstSeen: new Date(row.firstSeen as string | Date),
      lastSeen: new Date(row.lastSeen as string | Date),
      traceCount: Number(row.traceCount),
      errorCount: Number(row.errorCount),
      failedTraceCount: Number(row.failedTraceCount),
      promptTokens: asNumber(row.promptTokens),
      completionTokens: asNumber(row.completionTokens),
      totalTokens: asNumber(row.totalTokens),
      cost: asNumber(row.cost),
      userId: first?.userId ?? null,
      environment: first?.environment ?? null,
      firstTraceId: String(row.firstTraceId),
      lastTraceId: String(row.lastTraceId),
      firstInput: contents.get(String(row.firstTraceId))?.inputs ?? null,
      lastOutput: contents.get(String(row.lastTraceId))?.outputs ?? null,
      scores: scores.get(String(row.sessionId)) ?? [],
    };
  });
}

type Key = ReturnType<typeof decodeCursor>;
type PageRead = { after: Key | null; before: Key | null; size: number; backward: boolean };
type SessionKey = { sessionId: string; lastSeen: string | Date };

/** Traces a filtered walk looks at per session of its page before it gives way to grouping. */
const WALK_PER_SESSION = 10;

/**
 * The ids and last-seen times of a page of sessions, in the asked order (walking backward reverses
 * it; the caller puts the page back). The project's traces are walked newest first through the
 * (projectId, startTime) index, keeping each session's latest one: a page costs about its own
 * traces, however many there are. A filter is checked on each kept trace's session; when the first
 * traces walked hold too few matching sessions (a selective filter), the sessions it matches are
 * grouped instead, found through the filter's own index.
 */
async function pageKeys(ctx: RequestContext, filter: SessionFilter, page: PageRead): Promise<SessionKey[]> {
  const { search, ...traceFilter } = filter;
  const matches = new Where();
  const grouped = new Where();
  if (search !== undefined) {
    const like = [`g."sessionId" ${ctx.sql.like} ? ESCAPE '\\'`, `%${likeEscape(search)}%`] as const;
    matches.add(...like);
    grouped.add(...like);
  }
  if (Object.values(traceFilter).some((value) => value !== undefined)) {
    // Every trace counts, Assay's own evaluation calls too (they carry no session id).
    const traces = traceWhere(ctx, { ...traceFilter, includeEvaluations: true });
    matches.add(`EXISTS (SELECT 1 FROM "Trace" AS t WHERE ${traces.sql} AND t."sessionId" = g."sessionId")`, ...traces.params);
    // No `IS NOT NULL` on t (NULL never matches IN): it led SQLite to the session index rather than the filter's own.
    grouped.add(`g."sessionId" IN (SELECT t."sessionId" FROM "Trace" AS t WHERE ${traces.sql})`, ...traces.params);
  }
  if (matches.parts.length === 0) return walk(ctx, page, matches, null);
  const window = WALK_PER_SESSION * (page.size + 1);
  const walked = await walk(ctx, page, matches, window);
  return walked.length > page.size ? walked : group(ctx, page, grouped);
}

/**
 * The walk: each session's latest trace, in order from the cursor, whose session `matches`; over
 * the next `window` traces only when given (a shorter answer then says nothing of those past it).
 */
function walk(ctx: RequestContext, page: PageRead, matches: Where, window: number | null): Promise<SessionKey[]> {
  const order = page.backward ? 'ASC' : 'DESC';
  const walked = new Where();
  walked.add('g."projectId" = ? AND g."sessionId" IS NOT NULL', ctx.projectId);
  const columns = ['g."startTime"', 'g."sessionId"'];
  if (page.after) keysetCondition(columns, '<', page.after, walked);
  if (page.before) keysetCondition(columns, '>', page.before, walked);
  const latest = new Where();
  // Written as a range of the session index (later, or as late with a greater id): an OR of the
  // two led SQLite to scan the primary key for the greater ids.
  latest.add(`NOT EXISTS (SELECT 1 FROM "Trace" AS n WHERE n."projectId" = g."projectId" AND n."sessionId" = g."sessionId"
    AND n."startTime" >= g."startTime" AND (n."startTime" > g."startTime" OR n."traceId" > g."traceId"))`);
  latest.add(matches.sql || '1 = 1', ...matches.params);
  const ordered = `ORDER BY g."startTime" ${order}, g."sessionId" ${order}`;
  const traces =
    window === null
      ? { sql: `"Trace" AS g WHERE ${walked.sql} AND ${latest.sql}`, params: [...walked.params, ...latest.params] }
      : {
          sql: `(SELECT g."projectId", g."sessionId", g."traceId", g."startTime" FROM "Trace" AS g WHERE ${walked.sql} ${ordered} LIMIT ?) AS g WHERE ${latest.sql}`,
          params: [...walked.params, window, ...latest.params],
        };
  return ctx.sql.query<SessionKey>(ctx.db, `SELECT g."sessionId" AS "sessionId", g."startTime" AS "lastSeen" FROM ${traces.sql} ${ordered} LIMIT ?`, [
    ...traces.params,
    page.size + 1,
  ]);
}

/** The sessions `grouped` matches, each its traces grouped for its last-seen time. */
function group(ctx: RequestContext, page: PageRead, grouped: Where): Promise<SessionKey[]> {
  const order = page.backward ? 'ASC' : 'DESC';
  const having = new Where();
  const columns = ['MAX(g."startTime")', 'g."sessionId"'];
  if (page.after) keysetCondition(columns, '<', page.after, having);
  if (page.before) keysetCondition(columns, '>', page.before, having);
  return ctx.sql.query<SessionKey>(
    ctx.db,
    `SELECT g."sessionId" AS "sessionId", MAX(g."startTime") AS "lastSeen" FROM "Trace" AS g
     WHERE g."projectId" = ? AND g."sessionId" IS NOT NULL AND ${grouped.sql} GROUP BY g."sessionId"${having.parts.length > 0 ? ` HAVING ${having.sql}` : ''}
     ORDER BY MAX(g."startTime") ${order}, g."sessionId" ${order} LIMIT ?`,
    [ctx.projectId, ...grouped.params, ...having.params, page.size + 1],
  );
}

/**
 * The condition on the traces (`"Trace" AS g`) whose session ids a listing groups: a session
 * matches when one of its traces matches.
 */
function sessionKeysWhere(ctx: RequestContext, filter: SessionFilter): Where {
  const where = new Where();
  where.add('g."projectId" = ? AND g."sessionId" IS NOT NULL', ctx.projectId);
  if (filter.search) where.add(`g."sessionId" ${ctx.sql.like} ? ESCAPE '\\'`, `%${likeEscape(filter.search)}%`);
  const { search: _search, ...traceFilter } = filter;
  if (Object.values(traceFilter).some((value) => value !== undefined)) {
    // Every trace counts, Assay's own evaluation calls too (they carry no session id).
    const traces = traceWhere(ctx, { ...traceFilter, includeEvaluations: true });
    where.add(`g."sessionId" IN (SELECT t."sessionId" FROM "Trace" AS t WHERE ${traces.sql} AND t."sessionId" IS NOT NULL)`, ...traces.params);
  }
  return where;
}

/**
 * Sessions matching every filter, the latest active first, a page at a time. A session matches
 * when one of its traces matches; its figures are always over all of its traces.
 */
export async function listSessions(ctx: RequestContext, filter: SessionFilter = {}, args: PageArgs = {}): Promise<Page<SessionRow>> {
  const { size, backward } = pageSize(args);
  const after = args.after != null ? decodeCursor(args.after, 1, 'after') : null;
  const before = args.before != null ? decodeCursor(args.before, 1, 'before') : null;
  const keys = await pageKeys(ctx, filter, { after, before, size, backward });
  const more = keys.length > size;
  const page = keys.slice(0, size);
  if (backward) page.reverse();
  const figures = new Map(
    (
      await sessionFigures(
        ctx,
        page.map((key) => key.sessionId),
      )
    ).map((row) => [row.sessionId, row]),
  );
  const edges = page.flatMap((key) => {
    const node = figures.get(key.sessionId);
    return node ? [{ cursor: encodeCursor([new Date(key.lastSeen), key.sessionId]), node }] : [];
  });
  return pageOf(edges, { more, backward, after: after !== null, before: before !== null });
}

/** The session with this id, or NotFoundError (also when no trace of the caller's project has it). */
export async function getSession(ctx: RequestContext, sessionId: string): Promise<SessionRow> {
  const [session] = await sessionFigures(ctx, [sessionId]);
  if (!session) throw new NotFoundError('Session', sessionId);
  return session;
}

/** Sessions by id, for GraphQL's `node`; null for an id no trace has. */
export async function getSessions(ctx: RequestContext, sessionIds: readonly string[]): Promise<(SessionRow | null)[]> {
  const byId = new Map((await sessionFigures(ctx, sessionIds)).map((row) => [row.sessionId, row]));
  return sessionIds.map((id) => byId.get(id) ?? null);
}

/** A session's conversation: its traces in start order, each with its input and output, a page at a time. */
export async function sessionTurns(ctx: RequestContext, sessionId: string, args: PageArgs = {}): Promise<Page<SessionTurn>> {
  const page = await searchTraces(ctx, { sessionId, includeEvaluations: true }, { field: 'start_time', direction: 'asc' }, args);
  const contents = await traceContents(
    ctx,
    page.edges.map((edge) => edge.node),
  );
  return {
    pageInfo: page.pageInfo,
    edges: page.edges.map(({ cursor, node }) => {
      const content = contents.get(node.traceId);
      return { cursor, node: { trace: node, input: content?.inputs ?? null, output: content?.outputs ?? null } };
    }),
  };
}

/**
 * Sessions matching every filter by position, the latest active first: numbered pages, as
 * Langfuse's `GET /api/public/sessions` gives them (docs/langfuse.md#what-is-served).
 */
export async function sessionsAt(ctx: RequestContext, filter: SessionFilter, offset: number, limit: number): Promise<SessionRow[]> {
  const where = sessionKeysWhere(ctx, filter);
  const keys = await ctx.sql.query<{ sessionId: string }>(
    ctx.db,
    `SELECT g."sessionId" AS "sessionId" FROM "Trace" AS g WHERE ${where.sql}
     GROUP BY g."sessionId" ORDER BY MAX(g."startTime") DESC, g."sessionId" DESC LIMIT ? OFFSET ?`,
    [...where.params, limit, offset],
  );
  const figures = new Map(
    (
      await sessionFigures(
        ctx,
        keys.map((key) => key.sessionId),
      )
    ).map((row) => [row.sessionId, row]),
  );
  return keys.flatMap((key) => figures.get(key.sessionId) ?? []);
}

/** How many sessions match every filter. */
export async function countSessions(ctx: RequestContext, filter: SessionFilter): Promise<number> {
  const where = sessionKeysWhere(ctx, filter);
  const [row] = await ctx.sql.query<{ count: number | string }>(
    ctx.db,
    `SELECT COUNT(DISTINCT g."sessionId") AS "count" FROM "Trace" AS g WHERE ${where.sql}`,
    where.params,
  );
  return Number(row?.count ?? 0);
}
