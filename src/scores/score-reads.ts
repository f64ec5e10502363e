// Reading scores (docs/scores.md): pages by filter, by id, by target for GraphQL's loaders, and
// Langfuse's search by lists of values (docs/langfuse.md). Writes and deletes are in operations.ts.
import DataLoader from 'dataloader';
import { perRequest, type RequestContext } from '../shared/context.js';
import type { Prisma } from '../shared/db.js';
import { NotFoundError, ValidationError } from '../shared/errors.js';
import type { ScoreDataType, ScoreListQuery, ScoreSource } from './inputs.js';
import type { ScoreContext, ScoreRow } from './operations.js';

/**
 * The filter of `GET /scores` and GraphQL `scores`, every part optional; besides, for callers
 * above (Langfuse's API): `ids`, and `trace_ids` (the traces another filter found).
 */
export type ScoreFilter = Omit<Partial<ScoreListQuery>, 'limit' | 'cursor'> & { ids?: readonly string[]; trace_ids?: readonly string[] };

export interface ScorePage {
  scores: ScoreRow[];
  /** Pass as `after` for the next page; null on the last. */
  nextCursor: string | null;
}

/** A score's place in the list (newest first): its creation time and id, opaque to clients. */
export function scoreCursor(row: Pick<ScoreRow, 'createdAt' | 'id'>): string {
  return Buffer.from(JSON.stringify([row.createdAt.toISOString(), row.id])).toString('base64url');
}

function decodeCursor(cursor: string, loc: (string | number)[]): { createdAt: Date; id: string } {
  try {
    const [time, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const createdAt = new Date(time as string);
    if (typeof time === 'string' && typeof id === 'string' && !Number.isNaN(createdAt.getTime())) return { createdAt, id };
  } catch {
    // Not ours: refused below.
  }
  throw ValidationError.at(loc, 'Invalid cursor');
}

function scoreWhere(projectId: string, filter: ScoreFilter): Prisma.ScoreWhereInput {
  return {
    projectId,
    ...(filter.ids && { id: { in: [...filter.ids] } }),
    ...(filter.trace_ids && { traceId: { in: [...filter.trace_ids] } }),
    ...(filter.trace_id && { traceId: filter.trace_id }),
    ...(filter.span_id && { spanId: filter.span_id }),
    ...(filter.session_id && { sessionId: filter.session_id }),
    ...(filter.scenario_id && { scenarioId: filter.scenario_id }),
    ...(filter.target && { target: filter.target }),
    ...(filter.name && { name: filter.name }),
    ...(filter.source && { source: filter.source }),
    ...(filter.data_type && { dataType: filter.data_type }),
    ...(filter.config_id && { configId: filter.config_id }),
    ...((filter.started_after || filter.started_before) && {
      createdAt: { ...(filter.started_after && { gte: filter.started_after }), ...(filter.started_before && { lt: filter.started_before }) },
    }),
  };
}

/**
 * A page of the project's scores matching `filter`, newest first (creation time, then id).
 * `page.after` is a `scoreCursor`; a cursor that is not one is a 422 at `cursorLoc`. `page.skip`
 * skips that many more (Langfuse's numbered pages).
 */
export async function listScores(
  ctx: Pick<ScoreContext, 'db' | 'projectId'>,
  filter: ScoreFilter,
  page: { first: number; after?: string | null; skip?: number },
  cursorLoc: (string | number)[] = ['query', 'cursor'],
): Promise<ScorePage> {
  const where = scoreWhere(ctx.projectId, filter);
  if (page.after) {
    const { createdAt, id } = decodeCursor(page.after, cursorLoc);
    where.OR = [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }];
  }
  const rows = await ctx.db.score.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.skip, take: page.first + 1 });
  const scores = rows.slice(0, page.first);
  return { scores, nextCursor: rows.length > page.first ? scoreCursor(scores.at(-1)!) : null };
}

/** How many of the project's scores match `filter`. */
export function countScores(ctx: Pick<ScoreContext, 'db' | 'projectId'>, filter: ScoreFilter): Promise<number> {
  return ctx.db.score.count({ where: scoreWhere(ctx.projectId, filter) });
}

/** One score of the project; 404 for an unknown id and another project's alike. */
export async function getScore(ctx: Pick<ScoreContext, 'db' | 'projectId'>, id: string): Promise<ScoreRow> {
  const row = await ctx.db.score.findUnique({ where: { projectId_id: { projectId: ctx.projectId, id } } });
  if (!row) throw new NotFoundError('Score', id);
  return row;
}

/** What scores are read by for a batch of targets (GraphQL's loaders of `Trace.scores`, `Span.scores`, …). */
export type ScoreTargetKey = 'traceId' | 'spanId' | 'sessionId' | 'scenarioId';

/**
 * The scores of each of `ids` (by `key`), oldest first, in `ids`' order: one query for a batch.
 * By `traceId` every score naming the trace comes, its spans' too; `Trace.scores` keeps the
 * trace's own (target "trace") where it wants only those.
 */
export async function scoresOf(ctx: Pick<ScoreContext, 'db' | 'projectId'>, key: ScoreTargetKey, ids: readonly string[]): Promise<ScoreRow[][]> {
  const rows = await ctx.db.score.findMany({
    where: { projectId: ctx.projectId, [key]: { in: [...new Set(ids)] } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  const grouped = new Map<string, ScoreRow[]>();
  for (const row of rows) {
    const id = row[key]!;
    grouped.set(id, [...(grouped.get(id) ?? []), row]);
  }
  return ids.map((id) => grouped.get(id) ?? []);
}

const loaderKeys: Record<ScoreTargetKey, symbol> = {
  traceId: Symbol('scores.byTrace'),
  spanId: Symbol('scores.bySpan'),
  sessionId: Symbol('scores.bySession'),
  scenarioId: Symbol('scores.byScenario'),
};

/** Per request: the scores of traces (spans, sessions, scenarios) loaded together, for GraphQL's `scores` fields. */
export function scoresLoader(ctx: RequestContext, key: ScoreTargetKey): DataLoader<string, ScoreRow[]> {
  return perRequest(ctx, loaderKeys[key], () => new DataLoader<string, ScoreRow[]>((ids) => scoresOf(ctx, key, ids), { maxBatchSize: 500 }));
}

// ---------------------------------------------------------------------------------------------
// Searching scores by lists of values (Langfuse's public API, docs/langfuse.md)

/** A wider filter than ScoreFilter: each list matches any of its values, the parts all at once. */
export interface ScoreSearch {
  ids?: string[];
  names?: string[];
  sources?: ScoreSource[];
  dataTypes?: ScoreDataType[];
  configIds?: string[];
  traceIds?: string[];
  spanIds?: string[];
  sessionIds?: string[];
  /** Scores written by these signed-in users. */
  authorUserIds?: string[];
  /** The value compared with a number (`value >= 3`). */
  compare?: { operator: 'lt' | 'gt' | 'lte' | 'gte' | 'equals' | 'not'; value: number };
  /** The value is one of these numbers (NUMERIC, BOOLEAN as 1/0). */
  values?: number[];
  /** The label is one of these (CATEGORICAL). */
  stringValues?: string[];
  valueMin?: number;
  valueMax?: number;
  /** Created at or after. */
  createdFrom?: Date;
  /** Created before. */
  createdBefore?: Date;
}

function searchWhere(projectId: string, search: ScoreSearch): Prisma.ScoreWhereInput {
  const anyOf = <T>(values: T[] | undefined) => (values === undefined ? undefined : { in: values });
  const value: Prisma.FloatNullableFilter = {
    ...(search.compare && { [search.compare.operator]: search.compare.value }),
    ...(search.values && { in: search.values }),
    ...(search.valueMin !== undefined && { gte: search.valueMin }),
    ...(search.valueMax !== undefined && { lte: search.valueMax }),
  };
  return {
    projectId,
    id: anyOf(search.ids),
    name: anyOf(search.names),
    source: anyOf(search.sources),
    dataType: anyOf(search.dataTypes),
    configId: anyOf(search.configIds),
    traceId: anyOf(search.traceIds),
    spanId: anyOf(search.spanIds),
    sessionId: anyOf(search.sessionIds),
    ...(search.authorUserIds && { authorType: 'user', authorId: { in: search.authorUserIds } }),
    ...(Object.keys(value).length > 0 && { value }),
    stringValue: anyOf(search.stringValues),
    ...((search.createdFrom || search.createdBefore) && {
      createdAt: { ...(search.createdFrom && { gte: search.createdFrom }), ...(search.createdBefore && { lt: search.createdBefore }) },
    }),
  };
}

/**
 * A page of the project's scores matching `search`, newest first (creation time, then id): by
 * `offset` (Langfuse's numbered pages) or after a `scoreCursor` (a cursor that is not one is a
 * 422 at `['query', 'cursor']`).
 */
export async function searchScores(
  ctx: Pick<ScoreContext, 'db' | 'projectId'>,
  search: ScoreSearch,
  page: { limit: number; offset?: number; after?: string | null },
): Promise<ScorePage> {
  const where = searchWhere(ctx.projectId, search);
  if (page.after) {
    const { createdAt, id } = decodeCursor(page.after, ['query', 'cursor']);
    where.AND = [{ OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] }];
  }
  const rows = await ctx.db.score.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.limit + 1 });
  const scores = rows.slice(0, page.limit);
  return { scores, nextCursor: rows.length > page.limit ? scoreCursor(scores.at(-1)!) : null };
}

/** How many of the project's scores match `search`. */
export function countSearchedScores(ctx: Pick<ScoreContext, 'db' | 'projectId'>, search: ScoreSearch): Promise<number> {
  return ctx.db.score.count({ where: searchWhere(ctx.projectId, search) });
}
