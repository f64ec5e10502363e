// The filters of trace and span search (docs/observability.md#search) as SQL conditions, shared
// by the listings (listings.ts) and the aggregates (metrics.ts). Trace rows carry their roll-ups
// (root name, kind, status, user, session, environment, app, variant, cost, tokens, latency), so
// most trace filters touch only the Trace table (a score name's presence too: Trace.scoreNames);
// "model" reads the TraceModel roll-up through its index, and "text" looks into the trace's spans
// through the span primary key (projectId, traceId, …).
import type { RequestContext } from '../../shared/context.js';
import type { BulkSql } from '../../shared/sql.js';
import { scoreCondition, type ScoreCondition, type TraceTimes } from '../../scores/trace-search.js';
import { EVALUATION_ENVIRONMENT, type SpanKind, type SpanStatus } from '../ingestion/span-record.js';

/** A span attribute a span must have (docs/observability.md#span-attributes): `key` as sent. */
export type AttributeCondition =
  | { key: string; operator: 'equals'; value: string | number | boolean }
  | { key: string; operator: 'contains'; value: string | number | boolean }
  | { key: string; operator: 'exists' };

export interface SearchFilter {
  startedAfter?: Date;
  startedBefore?: Date;
  /** Part of the name (traces: the root's), ignoring the case of ASCII letters. */
  nameContains?: string;
  /** Spans: their kind; traces: the root span's kind. */
  spanKinds?: SpanKind[];
  /** Spans: their status; traces: ERROR when any span failed, else the root's status. */
  statuses?: SpanStatus[];
  userId?: string;
  sessionId?: string;
  environment?: string;
  appId?: string;
  variantId?: string;
  variantName?: string;
  /** The traces (spans) naming this variant revision (docs/observability.md#traces-of-a-revision). */
  revision?: RevisionReference;
  /** A model name, or a family: "gpt-4o" also matches "gpt-4o-2024-08-06". Traces: any span's. */
  model?: string;
  /** Text in the inputs or outputs (traces: of any span), ignoring ASCII case. */
  text?: string;
  minCost?: number;
  maxCost?: number;
  /** Seconds. */
  minLatency?: number;
  maxLatency?: number;
  /** Spans only: spans of this trace. */
  traceId?: string;
  /** Scores the trace has (spans: their trace has), all of them (docs/scores.md#in-the-trace-list). */
  scores?: ScoreCondition[];
  /** Span attributes a span has (traces: some span of the trace has each), all of them. */
  attributes?: AttributeCondition[];
  /**
   * Also the traces (spans) of Assay's own evaluation calls, which are left out unless this is
   * set or `environment` names theirs (EVALUATION_ENVIRONMENT).
   */
  includeEvaluations?: boolean;
}

/**
 * How spans may name one variant revision: by the variant's id, or by its name (a Langfuse prompt,
 * an Agenta slug) with either no app or the app's id or name; and the revision's number.
 */
export interface RevisionReference {
  variantId: string;
  variantName: string;
  /** The app's id and name: a span naming the variant by name and another app is not its. */
  app: readonly string[];
  revision: number;
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** SQL conditions joined by AND, with their parameters in order. */
export class Where {
  readonly parts: string[] = [];
  readonly params: unknown[] = [];
  add(sql: string, ...params: unknown[]) {
    this.parts.push(sql);
    this.params.push(...params);
  }
  get sql() {
    return this.parts.join(' AND ');
  }
}

/**
 * A model or its family, as the column's text compares: the name itself, or the names that go on
 * after it and a "-". On Span the family is found by its first characters; on TraceModel
 * (`indexed`) by a range of its index, "x-" up to "x." ("." follows "-" in byte order, which
 * TraceModel.model compares in on both databases: docs/observability.md#roll-ups).
 */
function modelCondition(column: string, model: string, where: Where, indexed = false) {
  const family = `${model}-`;
  if (indexed) where.add(`(${column} = ? OR (${column} >= ? AND ${column} < ?))`, model, family, `${model}.`);
  else where.add(`(${column} = ? OR substr(${column}, 1, ?) = ?)`, model, [...family].length, family);
}

/** Text in a span's inputs or outputs (their JSON text), ignoring ASCII case. */
function textCondition(sql: BulkSql, alias: string, text: string, where: Where) {
  const pattern = `%${likeEscape(text)}%`;
  const matches = (column: string) => `${sql.jsonAsText(`${alias}."${column}"`)} ${sql.like} ? ESCAPE '\\'`;
  where.add(`(${matches('inputs')} OR ${matches('outputs')})`, pattern, pattern);
}

/**
 * A span attribute condition on the span `alias`: the member of its attributes under the key
 * (a JSON value, compared as JSON by `equals`; its text, a string's own, for `contains`).
 */
function attributeCondition(sql: BulkSql, alias: string, condition: AttributeCondition, where: Where) {
  const key = sql.memberKey(condition.key);
  const column = `${alias}."attributes"`;
  if (condition.operator === 'exists') where.add(`${sql.jsonKeyMember(column, 'json')} IS NOT NULL`, key);
  else if (condition.operator === 'equals') where.add(`${sql.jsonKeyMember(column, 'json')} = ${sql.jsonParam('?')}`, key, JSON.stringify(condition.value));
  else where.add(`${sql.jsonKeyMember(column, 'text')} ${sql.like} ? ESCAPE '\\'`, key, `%${likeEscape(String(condition.value))}%`);
}

function commonConditions(sql: BulkSql, alias: string, filter: SearchFilter, where: Where) {
  const c = (column: string) => `${alias}."${column}"`;
  if (filter.startedAfter) where.add(`${c('startTime')} >= ?`, filter.startedAfter);
  if (filter.startedBefore) where.add(`${c('startTime')} <= ?`, filter.startedBefore);
  if (filter.nameContains) where.add(`${c('name')} ${sql.like} ? ESCAPE '\\'`, `%${likeEscape(filter.nameContains)}%`);
  if (filter.spanKinds?.length) where.add(`${c('spanKind')} IN (${filter.spanKinds.map(() => '?').join(', ')})`, ...filter.spanKinds);
  if (filter.statuses?.length) where.add(`${c('statusCode')} IN (${filter.statuses.map(() => '?').join(', ')})`, ...filter.statuses);
  for (const [key, column] of [
    ['userId', 'userId'],
    ['sessionId', 'sessionId'],
    ['environment', 'environment'],
    ['appId', 'appId'],
    ['variantId', 'variantId'],
    ['variantName', 'variantName'],
  ] as const) {
    if (filter[key] !== undefined) where.add(`${c(column)} = ?`, filter[key]);
  }
  if (filter.revision) {
    const { variantId, variantName, app, revision } = filter.revision;
    where.add(
      `${c('variantRevision')} = ? AND (${c('variantId')} = ? OR (${c('variantName')} = ? AND (${c('appId')} IS NULL${app.length ? ` OR ${c('appId')} IN (${app.map(() => '?').join(', ')})` : ''})))`,
      revision,
      variantId,
      variantName,
      ...app,
    );
  }
  if (filter.environment === undefined && !filter.includeEvaluations) where.add(`${c('environment')} ${sql.isNot} ?`, EVALUATION_ENVIRONMENT);
  if (filter.minCost !== undefined) where.add(`${c('cost')} >= ?`, filter.minCost);
  if (filter.maxCost !== undefined) where.add(`${c('cost')} <= ?`, filter.maxCost);
  if (filter.minLatency !== undefined) where.add(`${c('latency')} >= ?`, filter.minLatency);
  if (filter.maxLatency !== undefined) where.add(`${c('latency')} <= ?`, filter.maxLatency);
}

/** The score filters; on traces (`t`) "has (no) score of a name" tests the trace's names roll-up (docs/observability.md#roll-ups). */
function scoreConditions(ctx: RequestContext, alias: string, filter: SearchFilter, where: Where) {
  const names = alias === 't' ? `${alias}."scoreNames"` : undefined;
  for (const condition of filter.scores ?? []) {
    const { sql, params } = scoreCondition(ctx.projectId, `${alias}."traceId"`, condition, ctx.sql.provider, names);
    where.add(sql, ...params);
  }
}

/** The parts of a filter `traceTimesOnly` takes: the others must be absent. */
const timeParts = new Set<string>(['startedAfter', 'startedBefore', 'environment', 'includeEvaluations']);

/**
 * The traces `filter` keeps, as their start and environment alone (the trace list unfiltered, over
 * a time range, of one environment), in `traceWhere`'s terms; null when it asks anything else.
 * Their score figures are then read from the scores alone (scores/trace-search.ts).
 */
export function traceTimesOnly(filter: SearchFilter): TraceTimes | null {
  for (const [part, value] of Object.entries(filter)) {
    if (!timeParts.has(part) && value !== undefined && !(Array.isArray(value) && value.length === 0)) return null;
  }
  return traceTimes(filter);
}

/** The start and environment `filter` asks of the traces it keeps, whatever else it asks. */
export function traceTimes(filter: SearchFilter): TraceTimes {
  return {
    startedAfter: filter.startedAfter,
    startedBefore: filter.startedBefore,
    environment: filter.environment,
    // As commonConditions: Assay's own evaluation traces are left out unless asked for.
    notEnvironment: filter.environment === undefined && !filter.includeEvaluations ? EVALUATION_ENVIRONMENT : undefined,
  };
}

export function traceWhere(ctx: RequestContext, filter: SearchFilter): Where {
  const where = new Where();
  where.add('t."projectId" = ?', ctx.projectId);
  commonConditions(ctx.sql, 't', filter, where);
  if (filter.model !== undefined) {
    const models = new Where();
    models.add('m."projectId" = ?', ctx.projectId);
    modelCondition('m."model"', filter.model, models, true);
    where.add(`t."traceId" IN (SELECT m."traceId" FROM "TraceModel" AS m WHERE ${models.sql})`, ...models.params);
  }
  scoreConditions(ctx, 't', filter, where);
  if (filter.text !== undefined) traceSpanCondition(ctx, where, (inner) => textCondition(ctx.sql, 's', filter.text!, inner));
  // Each condition on its own: the trace has a span meeting it, not necessarily the same span.
  for (const condition of filter.attributes ?? []) traceSpanCondition(ctx, where, (inner) => attributeCondition(ctx.sql, 's', condition, inner));
  return where;
}

/** The trace (`t`) has a span (`s`) meeting what `condition` adds. */
function traceSpanCondition(ctx: RequestContext, where: Where, condition: (inner: Where) => void) {
  const inner = new Where();
  inner.add('s."projectId" = t."projectId" AND s."traceId" = t."traceId"');
  // PostgreSQL: only the partitions of the trace's time (docs/database.md#span-partitions).
  if (ctx.sql.provider === 'postgresql') inner.add('s."startTime" >= t."startTime" AND s."startTime" <= t."endTime"');
  condition(inner);
  where.add(`EXISTS (SELECT 1 FROM "Span" AS s WHERE ${inner.sql})`, ...inner.params);
}

export function spanWhere(ctx: RequestContext, filter: SearchFilter): Where {
  const where = new Where();
  where.add('s."projectId" = ?', ctx.projectId);
  if (filter.traceId !== undefined) where.add('s."traceId" = ?', filter.traceId);
  commonConditions(ctx.sql, 's', filter, where);
  if (filter.model !== undefined) modelCondition('s."model"', filter.model, where);
  if (filter.text !== undefined) textCondition(ctx.sql, 's', filter.text, where);
  for (const condition of filter.attributes ?? []) attributeCondition(ctx.sql, 's', condition, where);
  scoreConditions(ctx, 's', filter, where);
  return where;
}
