// Langfuse's scores on Assay's (docs/langfuse.md#field-mapping): a Langfuse score body becomes a
// ScoreInput of src/scores (traceId → trace_id, observationId → span_id, …) and is written by its
// one write, so a score sent through Langfuse's SDK is checked against its config and stored as
// one sent to `POST /scores`; its faults name Langfuse's fields. Langfuse's list filters become a
// ScoreSearch of src/scores, its pages an offset (v2) or Assay's cursor (v3).
import { followTraces } from '../evaluations/external-traces.js';
import { AssayError, ValidationError } from '../shared/errors.js';
import type { RequestContext } from '../shared/context.js';
import { scoreInput, type ScoreInput, type ScoreSource } from '../scores/inputs.js';
import * as scores from '../scores/operations.js';
import * as scoreReads from '../scores/score-reads.js';
import { traceOwners } from '../observability/traces/trace-reads.js';
import type { LangfuseScoreBody, LangfuseSource, ScoresV2Query, ScoresV3Query } from './inputs.js';
import { DEFAULT_ENVIRONMENT, LangfuseInvalidRequest, langfuseScoreJson, langfuseScoreV3Json, langfuseTraceData, pageOf } from './responses.js';

/** Assay's sources a Langfuse source stands for (EVAL: an evaluator's and an online evaluation's); a score written takes the first. */
const assaySources: Record<LangfuseSource, ScoreSource[]> = { API: ['api'], ANNOTATION: ['annotation'], EVAL: ['evaluation', 'online'] };

/** Assay's score fields by the Langfuse field that carries them, for faults found on the Assay side. */
const langfuseFieldOf: Record<string, string> = {
  id: 'id',
  target: 'traceId',
  trace_id: 'traceId',
  span_id: 'observationId',
  session_id: 'sessionId',
  name: 'name',
  data_type: 'dataType',
  value: 'value',
  string_value: 'value',
  comment: 'comment',
  metadata: 'metadata',
  source: 'source',
  config_id: 'configId',
};

export function langfuseField(field: PropertyKey): string {
  return langfuseFieldOf[String(field)] ?? String(field);
}

/** A fault of a Langfuse score at `path`, as its 400 lists it. */
const fault = (path: string, message: string) => ({ path: [path], message, code: 'custom' });

/**
 * The ScoreInput of a Langfuse score, or its faults. Langfuse's `environment` and `queueId` have
 * nothing to map to and are not kept; a dataset run is not an Assay target.
 */
export function scoreInputOf(body: LangfuseScoreBody): ScoreInput {
  if (body.datasetRunId) {
    throw new LangfuseInvalidRequest([
      fault('datasetRunId', 'Assay has no dataset runs: score a trace (traceId, with observationId for one of its spans) or a session (sessionId)'),
    ]);
  }
  const candidate = {
    id: body.id ?? undefined,
    trace_id: body.traceId ?? null,
    span_id: body.observationId ?? null,
    session_id: body.sessionId ?? null,
    name: body.name,
    data_type: body.dataType ?? undefined,
    value: body.value,
    comment: body.comment ?? null,
    metadata: body.metadata ?? null,
    source: body.source ? assaySources[body.source][0] : undefined,
    config_id: body.configId ?? null,
  };
  // Assay's own limits (id and name lengths, JSON metadata) apply to a score from Langfuse as well.
  const parsed = scoreInput.safeParse(candidate);
  if (!parsed.success) {
    throw new LangfuseInvalidRequest(parsed.error.issues.map((issue) => ({ path: issue.path.map(langfuseField), message: issue.message, code: issue.code })));
  }
  return parsed.data;
}

/** Faults reported for an input name its Langfuse field: `["value"]`. */
const atField = (_index: number, field: string) => [langfuseField(field)];

/** Writes one Langfuse score (`POST /api/public/scores`): faults in Langfuse's 400, naming its fields. */
export async function writeLangfuseScore(ctx: RequestContext, body: LangfuseScoreBody): Promise<scores.ScoreRow> {
  const input = scoreInputOf(body);
  try {
    const [row] = await scores.upsertScores(ctx, [input], { at: atField });
    // A score on the trace of a run's case is its result (docs/langfuse.md#dataset-runs).
    if (row.traceId) await followTraces(ctx, [row.traceId]);
    return row;
  } catch (error) {
    if (error instanceof ValidationError && !(error instanceof LangfuseInvalidRequest)) {
      throw new LangfuseInvalidRequest(error.issues.map((issue) => ({ path: issue.loc, message: issue.msg, code: issue.type })));
    }
    throw error;
  }
}

/** What became of each of a batch's scores: stored, or refused with its error. */
export type ScoreOutcome = { ok: true } | { ok: false; error: AssayError };

/**
 * Writes many scores (an ingestion batch's), each answered on its own: a score Assay refuses (its
 * config's range, another target under the same id) is refused alone, its faults naming its
 * Langfuse fields, and the others are stored together in one statement (`storeScores`).
 */
export async function writeLangfuseScores(ctx: RequestContext, inputs: readonly ScoreInput[]): Promise<ScoreOutcome[]> {
  const refusals = await scores.storeScores(ctx, inputs, { at: atField });
  return refusals.map((error) => (error ? { ok: false, error } : { ok: true }));
}

const notServed = (field: string, why: string) =>
  new LangfuseInvalidRequest([{ path: [field], message: `${field} is not served by Assay: ${why} (docs/langfuse.md#what-is-not-served)`, code: 'custom' }]);

/**
 * Whether a filter can match nothing in Assay: a score is in Langfuse's `default` environment,
 * in no annotation queue and no dataset run.
 */
function matchesNothing(query: { environment?: string[]; queueId?: string | string[]; datasetRunId?: string; experimentId?: string[] }): boolean {
  return (
    (query.environment !== undefined && !query.environment.includes(DEFAULT_ENVIRONMENT)) ||
    [query.queueId, query.datasetRunId, query.experimentId].flat().some((value) => value !== undefined)
  );
}

const comparisons = { '<': 'lt', '>': 'gt', '<=': 'lte', '>=': 'gte', '=': 'equals', '!=': 'not', '<>': 'not' } as const;

/** `GET /api/public/v2/scores`: Langfuse's page and its `meta`. */
export async function listScoresV2(ctx: RequestContext, query: ScoresV2Query) {
  if (query.userId) throw notServed('userId', "scores are filtered by their own fields, not their trace's user");
  if (query.traceTags) throw notServed('traceTags', 'traces have no tags');
  if (query.filter) throw notServed('filter', 'use the named filters');
  if (matchesNothing(query)) return pageOf([], query.page, query.limit, 0);
  if (query.operator !== undefined && query.value === undefined) {
    throw new LangfuseInvalidRequest([{ path: ['value'], message: 'operator needs a value to compare with', code: 'custom' }]);
  }
  const search: scoreReads.ScoreSearch = {
    ids: query.scoreIds,
    names: query.name === undefined ? undefined : [query.name],
    sources: query.source && assaySources[query.source],
    dataTypes: query.dataType && [query.dataType],
    configIds: query.configId === undefined ? undefined : [query.configId],
    traceIds: query.traceId === undefined ? undefined : [query.traceId],
    spanIds: query.observationId,
    sessionIds: query.sessionId === undefined ? undefined : [query.sessionId],
    compare: query.operator && query.value !== undefined ? { operator: comparisons[query.operator], value: query.value } : undefined,
    createdFrom: query.fromTimestamp,
    createdBefore: query.toTimestamp,
  };
  const [page, total] = await Promise.all([
    scoreReads.searchScores(ctx, search, { limit: query.limit, offset: (query.page - 1) * query.limit }),
    scoreReads.countSearchedScores(ctx, search),
  ]);
  const data = page.scores.map(langfuseScoreJson);
  if (!query.fields || query.fields.includes('trace')) {
    const owners = new Map(
      (
        await traceOwners(
          ctx,
          page.scores.flatMap((score) => (score.traceId ? [score.traceId] : [])),
        )
      ).map((trace) => [trace.traceId, trace]),
    );
    page.scores.forEach((score, index) => {
      const owner = score.traceId ? owners.get(score.traceId) : undefined;
      if (owner) data[index].trace = langfuseTraceData(owner);
    });
  }
  return pageOf(data, query.page, query.limit, total);
}

/** `GET /api/public/v3/scores`: a page by Assay's cursor, each score with the field groups asked for. */
export async function listScoresV3(ctx: RequestContext, query: ScoresV3Query) {
  if (matchesNothing(query)) return { data: [], meta: { limit: query.limit } };
  const single = query.dataType?.length === 1 ? query.dataType[0] : undefined;
  const search: scoreReads.ScoreSearch = {
    ids: query.id,
    names: query.name,
    sources: query.source?.flatMap((source) => assaySources[source]),
    dataTypes: query.dataType,
    configIds: query.configId,
    authorUserIds: query.authorUserId,
    traceIds: query.traceId,
    spanIds: query.observationId,
    sessionIds: query.sessionId,
    values: query.value && single !== 'CATEGORICAL' ? query.value.map((value) => (single === 'BOOLEAN' ? Number(value === 'true') : Number(value))) : undefined,
    stringValues: query.value && single === 'CATEGORICAL' ? query.value : undefined,
    valueMin: query.valueMin,
    valueMax: query.valueMax,
    createdFrom: query.fromTimestamp,
    createdBefore: query.toTimestamp,
  };
  try {
    const page = await scoreReads.searchScores(ctx, search, { limit: query.limit, after: query.cursor });
    return {
      data: page.scores.map((score) => langfuseScoreV3Json(score, query.fields ?? [])),
      meta: { limit: query.limit, ...(page.nextCursor ? { cursor: page.nextCursor } : {}) },
    };
  } catch (error) {
    if (error instanceof ValidationError) throw new LangfuseInvalidRequest([{ path: ['cursor'], message: 'Invalid cursor', code: 'custom' }]);
    throw error;
  }
}
