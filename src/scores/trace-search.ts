// Scores in trace search (docs/scores.md#in-the-trace-list): the score filters as
// conditions on a trace's id, and figures of the scores of a set of traces. Observability's search
// hands in its traces as SQL (a SELECT over "Trace" with its parameters), so the SQL of "Score"
// stays here (docs/architecture.md#who-owns-which-table). A trace's scores are every score naming
// it, its spans' too. The conditions on values read the Score table itself through its
// (projectId, name, value | stringValue, traceId) indexes, which answer them without reading a
// row; "has (no) score of a name" reads the names kept on the trace's row (`Trace.scoreNames`,
// written by the database's triggers: migration 0021_trace_score_names).
import type { RequestContext } from '../shared/context.js';
import type { Provider, SqlValue } from '../shared/sql.js';
import { aggregate } from '../shared/statistics.js';
import type { ScoreDataType } from './inputs.js';
import type { ScoreRow } from './operations.js';

/** SQL with its `?` parameters in order. */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

/** A score filter of the trace list: one of a range, a boolean, categories or presence, on a score name. */
export type ScoreCondition = { name: string } & (
  | { kind: 'range'; min?: number; max?: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'categories'; anyOf: string[] }
  | { kind: 'presence'; present: boolean }
);

/**
 * A name as `Trace.scoreNames` holds it, between its "|"s ("\" written "\\", "|" written "\p", as
 * migration 0021_trace_score_names writes it): no other name's entry contains this text.
 */
export const scoreNamesEntry = (name: string) => `|${name.replaceAll('\\', '\\\\').replaceAll('|', '\\p')}|`;

/**
 * `traceId` (a trace id column of the caller's query) has a score of the condition's name that
 * meets it (or, for `present: false`, none of that name). `scoreNames`, the trace's
 * `Trace.scoreNames` column when the caller's query is over traces: a presence condition is then
 * a test of it, in the walk of the trace rows, instead of a subquery over the scores
 * (docs/database.md#benchsearch).
 */
export function scoreCondition(projectId: string, traceId: string, condition: ScoreCondition, provider: Provider, scoreNames?: string): SqlPart {
  const negated = condition.kind === 'presence' && !condition.present;
  if (condition.kind === 'presence' && scoreNames) {
    // "Has none" as NOT of "has": PostgreSQL then estimates it as keeping most traces; as `= 0` it
    // guessed 0.5% of them and planned the page's statements as parallel scans, which took both
    // cores three times over (docs/database.md#benchsearch).
    const found = `COALESCE(${provider === 'postgresql' ? 'strpos' : 'instr'}(${scoreNames}, ?), 0) > 0`;
    return { sql: negated ? `NOT (${found})` : found, params: [scoreNamesEntry(condition.name)] };
  }
  // Spans (no roll-up of their trace's names): PostgreSQL runs `NOT IN (subquery)` as a hashed
  // subplan of every score of the name; `NOT EXISTS` is an anti-join (33-45 ms against 55-82 on
  // bench/search's "no quality score" totals). SQLite's `NOT IN` builds an index of the subquery
  // once, 4 times faster than probing per trace (docs/database.md#benchsearch).
  if (negated && provider === 'postgresql') {
    return {
      sql: `NOT EXISTS (SELECT 1 FROM "Score" AS s WHERE s."projectId" = ? AND s."name" = ? AND s."traceId" = ${traceId})`,
      params: [projectId, condition.name],
    };
  }
  const inner: SqlPart = {
    sql: `SELECT s."traceId" FROM "Score" AS s WHERE s."projectId" = ? AND s."name" = ? AND s."traceId" IS NOT NULL`,
    params: [projectId, condition.name],
  };
  const and = (sql: string, ...params: unknown[]) => {
    inner.sql += ` AND ${sql}`;
    inner.params.push(...params);
  };
  switch (condition.kind) {
    case 'range':
      if (condition.min !== undefined) and(`s."value" >= ?`, condition.min);
      if (condition.max !== undefined) and(`s."value" <= ?`, condition.max);
      if (condition.min === undefined && condition.max === undefined) and(`s."value" IS NOT NULL`);
      break;
    case 'boolean':
      and(`s."value" = ? AND s."dataType" = 'BOOLEAN'`, condition.value ? 1 : 0);
      break;
    case 'categories':
      and(`s."stringValue" IN (${condition.anyOf.map(() => '?').join(', ')}) AND s."dataType" = 'CATEGORICAL'`, ...condition.anyOf);
      break;
    case 'presence':
      break;
  }
  return { sql: `${traceId} ${negated ? 'NOT IN' : 'IN'} (${inner.sql})`, params: inner.params };
}

/** A label's part of a BOOLEAN or CATEGORICAL score's summary. */
export interface LabelShare {
  label: string;
  count: number;
  /** Of the summary's count, 0 to 1. */
  share: number;
}

/** The scores of one name and data type over a set of traces. */
export interface ScoreSummary {
  name: string;
  dataType: ScoreDataType;
  /** Scores counted (TEXT ones too). */
  count: number;
  /** Of their values (a boolean as 1/0, a category as its value); null for TEXT. */
  mean: number | null;
  /** Sample standard deviation; null below two values. */
  stddev: number | null;
  /** 95%: Wilson's for BOOLEAN (a share of true), Student's t otherwise; null below two values. */
  interval: { low: number; high: number } | null;
  /** BOOLEAN and CATEGORICAL: each label's count and share, most frequent first; empty otherwise. */
  labels: LabelShare[];
}

const labelled = new Set<string>(['BOOLEAN', 'CATEGORICAL']);

/** From how many traces SQLite's figures walk the names' scores rather than each trace's. */
export const SCORES_FIRST_FROM = 2_000;

/**
 * How SQLite's figures meet the traces (PostgreSQL's read from the scores' trace start, below). Left to
 * itself SQLite walks the traces and looks up each one's scores by trace id, a row read per
 * score: right for a few traces, a second over 50,000. From SCORES_FIRST_FROM traces on (counted
 * up to there, no further) the names' scores are walked instead, through the (projectId, name,
 * value, traceId, dataType, stringValue) index that holds all the figures need, and tested
 * against the traces built once into a temporary index (docs/scores.md#in-the-trace-list).
 */
async function scoresFirst(ctx: Pick<RequestContext, 'db' | 'sql'>, traces: SqlPart, count?: number): Promise<boolean> {
  if (count !== undefined) return count >= SCORES_FIRST_FROM;
  const [row] = await ctx.sql.query<{ n: number | bigint }>(
    ctx.db,
    `SELECT COUNT(*) AS "n" FROM (${traces.sql} LIMIT ${SCORES_FIRST_FROM}) AS c`,
    traces.params,
  );
  return Number(row.n) >= SCORES_FIRST_FROM;
}

/** The scores of one name, data type and label (a BOOLEAN's or CATEGORICAL's; null otherwise) of one group of traces. */
export interface ScoreGroupFigures {
  group: number;
  name: string;
  dataType: ScoreDataType;
  label: string | null;
  /** Scores counted (TEXT ones too). */
  count: number;
  /** Of them, those with a value; their sum and sum of squares. */
  n: number;
  sum: number;
  squares: number;
}

/**
 * The scores named `names` (every name when null) of the traces of each group, by name, data type
 * and label, on SQLite: `groups` is a SELECT of `"group"` (a number) and `"traceId"` (the trace
 * list's matching traces, one group, or the chart's buckets: search/metrics.ts; `count` of them when
 * the caller knows), made once (a materialised CTE, which SQLite indexes by trace id itself when it
 * walks the scores first). The summaries and the chart's means of a page come from this one
 * statement. PostgreSQL's are `scoreFiguresByTraceStart`'s with the traces as `among`.
 */
export async function scoreFiguresByGroup(
  ctx: Pick<RequestContext, 'db' | 'sql' | 'projectId'>,
  groups: SqlPart,
  names: readonly string[] | null,
  count?: number,
): Promise<ScoreGroupFigures[]> {
  if (names?.length === 0) return [];
  // SQLite's CROSS JOIN walks its left side first (scoresFirst).
  const walk = (await scoresFirst(ctx, groups, count)) ? 'scores' : 'traces';
  const joined = {
    scores: `"Score" AS s CROSS JOIN g ON g."traceId" = s."traceId"`,
    traces: `g CROSS JOIN "Score" AS s ON s."projectId" = ? AND s."traceId" = g."traceId"`,
  }[walk];
  const named = names ? ` AND s."name" IN (${names.map(() => '?').join(', ')})` : '';
  // Beside the page's other statements (its list, the trace figures): BulkSql.allAside.
  const rows = await ctx.sql.allAside<FigureRow>(
    `WITH g AS MATERIALIZED (${groups.sql})
     SELECT g."group" AS "group", ${figureColumns}
     FROM ${joined}
     WHERE s."projectId" = ?${named}
     GROUP BY 1, 2, 3, 4`,
    [...groups.params, ...(walk === 'traces' ? [ctx.projectId] : []), ctx.projectId, ...(names ?? [])] as SqlValue[],
  );
  return rows.map(figuresOf);
}

/** The figures of a score `s`'s group, after its `"group"`: name, data type, label, counts and sums. */
const figureColumns = `s."name" AS "name", s."dataType" AS "dataType",
  CASE WHEN s."dataType" IN ('BOOLEAN', 'CATEGORICAL') THEN s."stringValue" END AS "label",
  COUNT(*) AS "count", COUNT(s."value") AS "n", SUM(s."value") AS "sum", SUM(s."value" * s."value") AS "squares"`;

type FigureRow = Record<string, string | number | bigint | null>;

function figuresOf(row: FigureRow): ScoreGroupFigures {
  return {
    group: Number(row.group),
    name: String(row.name),
    dataType: String(row.dataType) as ScoreDataType,
    label: row.label === null ? null : String(row.label),
    count: Number(row.count),
    n: Number(row.n),
    sum: Number(row.sum ?? 0),
    squares: Number(row.squares ?? 0),
  };
}

/**
 * Traces by their start and environment alone: the trace list's filter when it asks nothing else
 * (search/filters.ts `traceTimesOnly`). A stored trace's start and environment are on its scores
 * (`traceStart`, `traceEnvironment`, kept by the database's triggers: migration
 * 0019_score_trace_start), so the figures of such traces' scores need no join.
 */
export interface TraceTimes {
  startedAfter?: Date;
  startedBefore?: Date;
  /** The traces of this environment; else those of any environment but `notEnvironment`, when given. */
  environment?: string;
  notEnvironment?: string;
}

/**
 * What `scoreFiguresByGroup` answers for the traces of `traces`, read from the scores through their
 * (projectId, name, traceStart, traceEnvironment, dataType, stringValue, value) index: `group` makes
 * the group of a trace from its start (the SQL of a `"traceStart"` column, with its parameters), as
 * the groups' SELECT would (docs/scores.md#in-the-trace-list). `among`, a SELECT of `"traceId"`:
 * only the scores of those traces (the trace list's filter asks more than time and environment), on
 * PostgreSQL, whose planner then hashes the (fewer) matching traces' ids and walks the names' scores,
 * or looks up a few traces' scores by trace id, where the groups' join hashed every score of the names.
 */
export async function scoreFiguresByTraceStart(
  ctx: Pick<RequestContext, 'db' | 'sql' | 'projectId'>,
  traces: TraceTimes,
  names: readonly string[] | null,
  group: (traceStart: string) => SqlPart,
  among?: SqlPart,
): Promise<ScoreGroupFigures[]> {
  if (names?.length === 0) return [];
  const grouped = group('s."traceStart"');
  const where: SqlPart = { sql: `s."projectId" = ? AND s."traceStart" IS NOT NULL`, params: [ctx.projectId] };
  const and = (sql: string, ...params: unknown[]) => {
    where.sql += ` AND ${sql}`;
    where.params.push(...params);
  };
  if (names) and(`s."name" IN (${names.map(() => '?').join(', ')})`, ...names);
  if (traces.startedAfter) and(`s."traceStart" >= ?`, traces.startedAfter);
  if (traces.startedBefore) and(`s."traceStart" <= ?`, traces.startedBefore);
  if (traces.environment !== undefined) and(`s."traceEnvironment" = ?`, traces.environment);
  else if (traces.notEnvironment !== undefined) and(`s."traceEnvironment" ${ctx.sql.isNot} ?`, traces.notEnvironment);
  if (among) and(`s."traceId" IN (${among.sql})`, ...among.params);
  const rows = await ctx.sql.allAside<FigureRow>(
    `SELECT ${grouped.sql} AS "group", ${figureColumns} FROM "Score" AS s WHERE ${where.sql} GROUP BY 1, 2, 3, 4`,
    [...grouped.params, ...where.params] as SqlValue[],
  );
  return rows.map(figuresOf);
}

/**
 * The summaries of the scores named `names` (every name when null) of every group of `figures`,
 * by name and data type, in the order of `names` (else by name).
 */
export function scoreSummaries(figures: readonly ScoreGroupFigures[], names: readonly string[] | null): ScoreSummary[] {
  const asked = names && new Set(names);
  const byKey = new Map<
    string,
    { name: string; dataType: ScoreDataType; count: number; n: number; sum: number; squares: number; labels: Map<string, number> }
  >();
  for (const row of figures) {
    if (asked && !asked.has(row.name)) continue;
    const key = `${row.name}\u0000${row.dataType}`;
    const entry = byKey.get(key) ?? { name: row.name, dataType: row.dataType, count: 0, n: 0, sum: 0, squares: 0, labels: new Map<string, number>() };
    byKey.set(key, entry);
    entry.count += row.count;
    entry.n += row.n;
    entry.sum += row.sum;
    entry.squares += row.squares;
    if (labelled.has(entry.dataType) && row.label !== null) entry.labels.set(row.label, (entry.labels.get(row.label) ?? 0) + row.count);
  }
  const order = names ?? [...new Set([...byKey.values()].map((entry) => entry.name))].sort();
  return order.flatMap((name) =>
    [...byKey.values()]
      .filter((entry) => entry.name === name)
      .sort((a, b) => a.dataType.localeCompare(b.dataType))
      .map((entry) => {
        const figures = aggregate(entry.n, 0, entry.sum, entry.squares, entry.dataType === 'BOOLEAN');
        return {
          name: entry.name,
          dataType: entry.dataType,
          count: entry.count,
          mean: entry.dataType === 'TEXT' ? null : figures.mean,
          stddev: figures.stddev,
          interval: figures.ciLow === null || figures.ciHigh === null || entry.n < 2 ? null : { low: figures.ciLow, high: figures.ciHigh },
          labels: [...entry.labels]
            .map(([label, count]) => ({ label, count, share: count / entry.count }))
            .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label)),
        };
      }),
  );
}

/** The mean of one score name's values over one group of traces. */
export interface GroupScoreMean {
  group: number;
  name: string;
  /** Scores with a value. */
  count: number;
  mean: number;
}

/** The mean value of the scores named `names` in each group of `figures` that has one with a value. */
export function scoreMeansByGroup(figures: readonly ScoreGroupFigures[], names: readonly string[]): GroupScoreMean[] {
  const asked = new Set(names);
  const byKey = new Map<string, GroupScoreMean & { sum: number }>();
  for (const row of figures) {
    if (!asked.has(row.name) || row.n === 0) continue;
    const key = `${row.group}\u0000${row.name}`;
    const entry = byKey.get(key) ?? { group: row.group, name: row.name, count: 0, mean: 0, sum: 0 };
    byKey.set(key, entry);
    entry.count += row.n;
    entry.sum += row.sum;
  }
  return [...byKey.values()]
    .sort((a, b) => a.group - b.group || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map(({ group, name, count, sum }) => ({ group, name, count, mean: sum / count }));
}

/** A trace's scores of one name, as a column of the trace list shows them. */
export interface TraceScoreValue {
  name: string;
  /** The newest score's. */
  dataType: ScoreDataType;
  /** Scores of the name on the trace and its spans. */
  count: number;
  /** Of their values; null when none has one (TEXT). */
  mean: number | null;
  /** The newest score's value and label (or text). */
  value: number | null;
  stringValue: string | null;
}

/** The values of `scores` (one trace's, oldest first, as `scoresOf` gives them) for each of `names` the trace has (null: every name it has, by name). */
export function traceScoreValues(scores: readonly ScoreRow[], names: readonly string[] | null): TraceScoreValue[] {
  return [...new Set(names ?? scores.map((score) => score.name).sort())].flatMap((name) => {
    const named = scores.filter((score) => score.name === name);
    const newest = named.at(-1);
    if (!newest) return [];
    const values = named.flatMap((score) => (score.value === null ? [] : [score.value]));
    return [
      {
        name,
        dataType: newest.dataType as ScoreDataType,
        count: named.length,
        mean: values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : null,
        value: newest.value,
        stringValue: newest.stringValue,
      },
    ];
  });
}
