// Langfuse's score lists and config writes on Assay's scores (docs/langfuse.md#field-mapping):
// its filters become a ScoreSearch of src/scores, its pages an offset (v2) or Assay's cursor (v3),
// and a config's fields Assay's, with faults named by Langfuse's fields.
import type { RequestContext } from '../shared/context.js';
import { ValidationError } from '../shared/errors.js';
import { scoreConfigInput, type ScoreSource } from '../scores/inputs.js';
import * as scores from '../scores/operations.js';
import { traceOwners } from '../observability/traces/trace-reads.js';
import type { LangfuseSource, ScoreConfigBody, ScoreConfigPatch, ScoresV2Query, ScoresV3Query } from './inputs.js';
import { DEFAULT_ENVIRONMENT, LangfuseInvalidRequest, langfuseScoreJson, langfuseScoreV3Json, langfuseTraceData, pageOf } from './responses.js';

/** Assay's sources a Langfuse source stands for (EVAL: an evaluator's and an online evaluation's). */
const assaySources: Record<LangfuseSource, ScoreSource[]> = { API: ['api'], ANNOTATION: ['annotation'], EVAL: ['evaluation', 'online'] };

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
  const search: scores.ScoreSearch = {
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
    scores.searchScores(ctx, search, { limit: query.limit, offset: (query.page - 1) * query.limit }),
    scores.countSearchedScores(ctx, search),
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
  const search: scores.ScoreSearch = {
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
    const page = await scores.searchScores(ctx, search, { limit: query.limit, after: query.cursor });
    return {
      data: page.scores.map((score) => langfuseScoreV3Json(score, query.fields ?? [])),
      meta: { limit: query.limit, ...(page.nextCursor ? { cursor: page.nextCursor } : {}) },
    };
  } catch (error) {
    if (error instanceof ValidationError) throw new LangfuseInvalidRequest([{ path: ['cursor'], message: 'Invalid cursor', code: 'custom' }]);
    throw error;
  }
}

/** Assay's config fields by Langfuse's names. */
const configFieldOf: Record<string, string> = { data_type: 'dataType', min_value: 'minValue', max_value: 'maxValue', is_archived: 'isArchived' };

/** An Assay fault of a config, at its Langfuse field. */
function asLangfuseFaults(error: unknown): never {
  if (error instanceof ValidationError && !(error instanceof LangfuseInvalidRequest)) {
    throw new LangfuseInvalidRequest(
      error.issues.map((issue) => ({
        path: issue.loc.slice(1).map((part) => configFieldOf[String(part)] ?? part),
        message: issue.msg,
        code: issue.type,
      })),
    );
  }
  throw error;
}

/** `POST /api/public/score-configs`: a TEXT config is Langfuse's alone; a BOOLEAN one's categories are fixed. */
export async function createConfig(ctx: RequestContext, body: ScoreConfigBody) {
  if (body.dataType === 'TEXT') {
    throw new LangfuseInvalidRequest([
      { path: ['dataType'], message: "Assay's score configs are NUMERIC, BOOLEAN or CATEGORICAL; a TEXT score takes no config", code: 'custom' },
    ]);
  }
  const input = scoreConfigInput.safeParse({
    name: body.name,
    data_type: body.dataType,
    min_value: body.minValue,
    max_value: body.maxValue,
    // Langfuse makes a BOOLEAN config's two categories itself; Assay's are fixed.
    categories: body.dataType === 'BOOLEAN' ? null : body.categories,
    description: body.description,
  });
  if (!input.success)
    asLangfuseFaults(
      new ValidationError(input.error.issues.map((issue) => ({ loc: ['body', ...issue.path.map(String)], msg: issue.message, type: issue.code }))),
    );
  try {
    return await scores.createScoreConfig(ctx, input.data);
  } catch (error) {
    return asLangfuseFaults(error);
  }
}

/** `PATCH /api/public/score-configs/{configId}`: a field left out is kept. */
export async function updateConfig(ctx: RequestContext, id: string, patch: ScoreConfigPatch) {
  try {
    return await scores.updateScoreConfig(ctx, id, {
      name: patch.name,
      min_value: patch.minValue,
      max_value: patch.maxValue,
      categories: patch.categories,
      description: patch.description,
      is_archived: patch.isArchived,
    });
  } catch (error) {
    return asLangfuseFaults(error);
  }
}
