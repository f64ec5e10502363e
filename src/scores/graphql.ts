// GraphQL of scores and score configs (docs/scores.md#graphql): the same operations and validation
// as REST (routes.ts). `upsertScores` needs the `feedback` scope, which `write` includes. The
// `scores` fields of Trace, Span and EvaluationScenario are added by their domains with
// `scoresLoader` (observability/traces/graphql.ts, evaluations/graphql.ts).
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { builder } from '../shared/graphql/builder.js';
import { databaseIdOf, globalId } from '../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { ValidationError } from '../shared/errors.js';
import { parseInput } from '../shared/validation.js';
import {
  configDataTypes,
  scoreConfigInput,
  scoreConfigListQuery,
  scoreConfigPatch,
  scoreDataTypes,
  scoreInput,
  scoreListQuery,
  scoreSources,
  scoreTargets,
  MAX_SCORES_PER_REQUEST,
  type ScoreDataType,
  type ScoreSource,
  type ScoreTarget,
} from './inputs.js';
import * as scores from './operations.js';
import * as scoreConfigs from './score-configs.js';
import * as scoreReads from './score-reads.js';

export const ScoreTargetEnum = builder.enumType('ScoreTarget', {
  description: 'What a score judges.',
  values: upperCaseValues(scoreTargets, {
    trace: 'A whole trace (`traceId`).',
    span: 'One span (`traceId` and `spanId`).',
    session: 'A session: the traces sharing a session id (`sessionId`).',
    scenario: "One test case of an Assay evaluation (`scenarioId`): the evaluators' results are its scores.",
  }),
});

export const ScoreDataTypeEnum = builder.enumType('ScoreDataType', {
  description: 'What a score holds.',
  values: upperCaseValues(scoreDataTypes, {
    NUMERIC: 'A number in `value`.',
    BOOLEAN: '1 or 0 in `value`, "True" or "False" in `stringValue`.',
    CATEGORICAL: 'A category: its label in `stringValue`, its value (when it has one) in `value`.',
    TEXT: 'A text in `stringValue`.',
  }),
});

const ConfigDataTypeEnum = builder.enumType('ScoreConfigDataType', {
  description: 'What the scores of a config hold.',
  values: upperCaseValues(configDataTypes, {
    NUMERIC: 'A number, within `minValue` and `maxValue` when set.',
    BOOLEAN: 'True (1) or False (0).',
    CATEGORICAL: 'One of `categories`.',
  }),
});

export const ScoreSourceEnum = builder.enumType('ScoreSource', {
  description: 'Where a score came from.',
  values: upperCaseValues(scoreSources, {
    api: "Sent through the API by an app or a script (a key's default).",
    annotation: "Given by a person in the UI (a signed-in user's default).",
    evaluation: "An evaluator's result in an Assay evaluation run.",
    online: 'An evaluator run on production traces as they arrive.',
  }),
});

const ScoreAuthorType = builder.enumType('ScoreAuthorType', {
  description: 'What kind of author wrote a score.',
  values: upperCaseValues(['api_key', 'user', 'system'] as const, {
    api_key: 'An API key (a feedback key from a web page, a script).',
    user: 'A signed-in user.',
    system: 'The service itself: evaluation runs, or any write with auth off.',
  }),
});

const ScoreCategory = builder.objectRef<scoreConfigs.ScoreCategory>('ScoreCategory').implement({
  description: 'A category of a score config: the label a score shows and the value it counts as.',
  fields: (t) => ({
    label: t.exposeString('label', { description: 'What a score of the category shows, e.g. "helpful".' }),
    value: t.exposeFloat('value', { description: 'What the category counts as in means and charts.' }),
  }),
});

export const ScoreConfigRef = builder.prismaNode('ScoreConfig', {
  description: 'What a score of a name may hold: its data type, a range, categories. Archived, never deleted (docs/scores.md#score-configs).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses (`/score-configs/{id}`).' }),
    name: t.exposeString('name', { description: 'The name of the scores it types.' }),
    dataType: t.field({ type: ConfigDataTypeEnum, description: 'What its scores hold.', resolve: (row) => row.dataType as (typeof configDataTypes)[number] }),
    minValue: t.exposeFloat('minValue', { nullable: true, description: 'NUMERIC: the least value allowed; null for no bound.' }),
    maxValue: t.exposeFloat('maxValue', { nullable: true, description: 'NUMERIC: the greatest value allowed; null for no bound.' }),
    categories: t.field({
      type: [ScoreCategory],
      nullable: true,
      description: 'CATEGORICAL: its categories; BOOLEAN: False (0) and True (1); NUMERIC: null.',
      resolve: (row) => scoreConfigs.configCategories(row),
    }),
    description: t.exposeString('description', { nullable: true, description: 'What the score means, for the people giving it.' }),
    isArchived: t.exposeBoolean('isArchived', { description: 'Archived configs are listed but take no new scores.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});

export const ScoreRef = builder.prismaNode('Score', {
  description: 'One judgement of a trace, a span, a session or an evaluation scenario (docs/scores.md).',
  id: { resolve: (row) => row.id },
  nullable: true,
  findUnique: (id, ctx) => ({ projectId_id: { projectId: ctx.projectId, id } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: "The id REST uses: the client's own when it gave one." }),
    target: t.field({ type: ScoreTargetEnum, description: 'What it judges.', resolve: (row) => row.target as ScoreTarget }),
    traceId: t.exposeString('traceId', { nullable: true, description: 'The trace (target TRACE) or the trace of the span (SPAN), as the client sent it.' }),
    spanId: t.exposeString('spanId', { nullable: true, description: 'The span (target SPAN), as the client sent it.' }),
    sessionId: t.exposeString('sessionId', { nullable: true, description: 'The session (target SESSION), as the client sent it.' }),
    scenarioId: t.id({
      nullable: true,
      description: 'The global id of the EvaluationScenario (target SCENARIO).',
      resolve: (row) => globalId('EvaluationScenario', row.scenarioId),
    }),
    name: t.exposeString('name', { description: 'What is judged, e.g. "helpfulness".' }),
    dataType: t.field({ type: ScoreDataTypeEnum, description: 'What it holds.', resolve: (row) => row.dataType as ScoreDataType }),
    value: t.exposeFloat('value', {
      nullable: true,
      description: "NUMERIC: the number; BOOLEAN: 1 or 0; CATEGORICAL: the category's value; TEXT: null.",
    }),
    stringValue: t.exposeString('stringValue', {
      nullable: true,
      description: 'BOOLEAN: "True" or "False"; CATEGORICAL: the label; TEXT: the text; NUMERIC: null.',
    }),
    comment: t.exposeString('comment', { nullable: true, description: "The author's comment." }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true, description: 'Any JSON the author attached.' }),
    source: t.field({ type: ScoreSourceEnum, description: 'Where it came from.', resolve: (row) => row.source as ScoreSource }),
    authorType: t.field({
      type: ScoreAuthorType,
      description: 'What kind of author wrote it last.',
      resolve: (row) => row.authorType as 'api_key' | 'user' | 'system',
    }),
    authorId: t.exposeString('authorId', { nullable: true, description: 'The REST id of the key or user that wrote it last; null for the service.' }),
    authorLabel: t.exposeString('authorLabel', {
      nullable: true,
      description: "What identified the author when it wrote: a key's name and prefix, a user's email.",
    }),
    config: t.field({
      type: ScoreConfigRef,
      nullable: true,
      description: 'The score config it was checked against.',
      resolve: (row, _args, ctx) => (row.configId ? scoreConfigs.scoreConfigLoader(ctx).load(row.configId) : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first written.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it was last written.' }),
  }),
});

export const ScoreConnection = builder.connectionObject(
  { type: ScoreRef, name: 'ScoreConnection', description: 'Scores, a page at a time, newest first.' },
  { description: 'A score and its cursor.' },
);

const ScoreConfigConnection = builder.connectionObject(
  { type: ScoreConfigRef, name: 'ScoreConfigConnection', description: 'Score configs, a page at a time.' },
  { description: 'A score config and its cursor.' },
);

const ScoreInput = builder.inputType('ScoreInput', {
  description:
    'A score for `upsertScores` (REST: an item of `POST /scores`). The data type is the config’s, or `dataType`, or read from what is given: `value` alone is NUMERIC, `stringValue` alone TEXT.',
  fields: (t) => ({
    databaseId: t.string({ description: 'Your own id: writing it again updates the score (idempotent retries). A new UUIDv7 when absent.' }),
    target: t.field({ type: ScoreTargetEnum, description: 'What is judged; when absent, the most specific id given says.' }),
    traceId: t.string({ description: 'The trace (TRACE), or the trace of the span (SPAN); it need not have arrived yet.' }),
    spanId: t.string({ description: 'The span (SPAN), with its traceId.' }),
    sessionId: t.string({ description: 'The session (SESSION).' }),
    scenarioId: t.globalID({ description: 'The global id of an EvaluationScenario (SCENARIO).' }),
    name: t.string({ description: "What is judged; the config's name when configId is given." }),
    dataType: t.field({ type: ScoreDataTypeEnum, description: "The config's when configId is given." }),
    value: t.float({ description: "NUMERIC: the number; BOOLEAN: 1 or 0; CATEGORICAL: the category's value." }),
    stringValue: t.string({ description: 'BOOLEAN: "True" or "False"; CATEGORICAL: the label; TEXT: the text.' }),
    comment: t.string({ description: "The author's comment." }),
    metadata: t.field({ type: 'JSON', description: 'Any JSON.' }),
    source: t.field({ type: ScoreSourceEnum, description: 'API for a key, ANNOTATION for a signed-in user when absent; a feedback key writes API only.' }),
    configId: t.globalID({ for: ScoreConfigRef, description: 'A ScoreConfig the score must fit.' }),
  }),
});

const CategoryInput = builder.inputType('ScoreCategoryInput', {
  description: 'A category of a CATEGORICAL score config.',
  fields: (t) => ({
    label: t.string({ required: true, description: 'What a score of the category shows.' }),
    value: t.float({ required: true, description: 'What it counts as.' }),
  }),
});

const ScoreConfigInput = builder.inputType('ScoreConfigInput', {
  description: 'A new score config for `createScoreConfig` (REST: the body of `POST /score-configs`).',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The name of the scores it types.' }),
    dataType: t.field({ type: ConfigDataTypeEnum, required: true, description: 'What its scores hold; never changes.' }),
    minValue: t.float({ description: 'NUMERIC: the least value allowed.' }),
    maxValue: t.float({ description: 'NUMERIC: the greatest value allowed.' }),
    categories: t.field({ type: [CategoryInput], description: 'CATEGORICAL: one or more, labels and values each unique.' }),
    description: t.string({ description: 'What the score means, for the people giving it.' }),
  }),
});

const ScoreConfigPatchInput = builder.inputType('ScoreConfigPatchInput', {
  description: 'The fields of a score config to change (REST: the body of `PATCH /score-configs/{id}`); its data type never changes.',
  fields: (t) => ({
    name: t.string({ description: 'A new name.' }),
    minValue: t.float({ description: 'NUMERIC: a new least value; null for no bound.' }),
    maxValue: t.float({ description: 'NUMERIC: a new greatest value; null for no bound.' }),
    categories: t.field({ type: [CategoryInput], description: 'CATEGORICAL: the new categories, all of them.' }),
    description: t.string({ description: 'A new description; null for none.' }),
    isArchived: t.boolean({ description: 'True archives it (no new scores), false brings it back.' }),
  }),
});

/** The REST filter of GraphQL `scores`' arguments, checked as the query string is. */
function scoreFilter(args: object): scoreReads.ScoreFilter {
  const { first: _first, after: _after, last: _last, before: _before, ...rest } = args as Record<string, unknown>;
  const fields = restFields(rest);
  const query = Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value !== null)
      .map(([name, value]) => [name, value instanceof Date ? value.toISOString() : String(value)]),
  );
  const { limit: _limit, cursor: _cursor, ...filter } = parseInput(scoreListQuery, query, 'query');
  return filter;
}

builder.queryFields((t) => ({
  scores: t.connection(
    {
      type: ScoreRef,
      description: "The project's scores, newest first (REST: `GET /scores`). Pages forward only (`first`, `after`).",
      args: {
        traceId: t.arg.string({ description: "Only the scores naming this trace (the trace's and its spans')." }),
        spanId: t.arg.string({ description: 'Only the scores of this span.' }),
        sessionId: t.arg.string({ description: 'Only the scores of this session.' }),
        target: t.arg({ type: ScoreTargetEnum, description: 'Only scores of this kind of target.' }),
        name: t.arg.string({ description: 'Only scores of this name.' }),
        source: t.arg({ type: ScoreSourceEnum, description: 'Only scores from this source.' }),
        dataType: t.arg({ type: ScoreDataTypeEnum, description: 'Only scores of this data type.' }),
        startedAfter: t.arg({ type: 'DateTime', description: 'Only scores created at or after this time.' }),
        startedBefore: t.arg({ type: 'DateTime', description: 'Only scores created before this time.' }),
      },
      resolve: async (_root, args, ctx) => {
        if (args.last != null || args.before != null) throw ValidationError.at(['args', 'last'], 'Scores page forward only: use first and after');
        const first = args.first ?? 50;
        if (first < 1 || first > 1000) throw ValidationError.at(['args', 'first'], 'Input should be between 1 and 1000');
        const page = await scoreReads.listScores(ctx, scoreFilter(args), { first, after: args.after }, ['args', 'after']);
        return {
          edges: page.scores.map((row) => ({ cursor: scoreReads.scoreCursor(row), node: row })),
          pageInfo: {
            hasNextPage: page.nextCursor !== null,
            hasPreviousPage: args.after != null,
            startCursor: page.scores[0] ? scoreReads.scoreCursor(page.scores[0]) : null,
            endCursor: page.scores.at(-1) ? scoreReads.scoreCursor(page.scores.at(-1)!) : null,
          },
        };
      },
    },
    ScoreConnection,
  ),
  scoreConfigs: t.connection(
    {
      type: ScoreConfigRef,
      description: "The project's score configs by name, archived ones included unless `isArchived` says (REST: `GET /score-configs`).",
      args: {
        name: t.arg.string({ description: 'Only configs of this name.' }),
        dataType: t.arg({ type: ConfigDataTypeEnum, description: 'Only configs of this data type.' }),
        isArchived: t.arg.boolean({ description: 'Only archived (true) or only active (false) configs.' }),
      },
      resolve: async (_root, args, ctx) => {
        const filter = parseInput(
          scoreConfigListQuery,
          { name: args.name ?? undefined, data_type: args.dataType ?? undefined, is_archived: args.isArchived == null ? undefined : String(args.isArchived) },
          'query',
        );
        return resolveArrayConnection({ args }, await scoreConfigs.listScoreConfigs(ctx, filter));
      },
    },
    ScoreConfigConnection,
  ),
}));

builder.mutationFields((t) => ({
  upsertScores: t.field({
    type: [ScoreRef],
    description:
      'Writes scores, up to 1000: a new `databaseId` creates one, a known one updates it; answers them in order. All are checked first and all faults come in one BAD_USER_INPUT; an id used for another target is a CONFLICT (docs/scores.md).',
    extensions: { scope: 'feedback' },
    args: { input: t.arg({ type: [ScoreInput], required: true, description: 'The scores.' }) },
    resolve: async (_root, args, ctx) => {
      if (args.input.length > MAX_SCORES_PER_REQUEST)
        throw ValidationError.at(['body'], `List should have at most ${MAX_SCORES_PER_REQUEST} items`, 'too_long');
      // Each input checked as REST checks an item of its list, its faults at ['body', index, field].
      const parsed = args.input.map((input, index) => {
        // `metadata` is the client's JSON, kept as sent (restFields would read ids into it).
        const { databaseId, scenarioId, metadata, ...rest } = input;
        const fields = {
          ...restFields({ ...rest, scenarioId: databaseIdOf(scenarioId, 'EvaluationScenario', 'scenarioId') }),
          ...(metadata !== undefined && { metadata }),
        };
        try {
          return parseInput(scoreInput, { ...fields, ...(databaseId != null && { id: databaseId }) }, 'body');
        } catch (error) {
          if (error instanceof ValidationError)
            throw new ValidationError(error.issues.map((issue) => ({ ...issue, loc: ['body', index, ...issue.loc.slice(1)] })));
          throw error;
        }
      });
      return scores.upsertScores(ctx, parsed);
    },
  }),
  deleteScore: t.id({
    description: 'Deletes a score; answers its global id.',
    args: { id: t.arg.globalID({ for: ScoreRef, required: true, description: 'The global id of a Score.' }) },
    resolve: async (_root, args, ctx) => {
      await scores.deleteScore(ctx, args.id.id);
      return globalId('Score', args.id.id);
    },
  }),
  createScoreConfig: t.field({
    type: ScoreConfigRef,
    description: 'Creates a score config.',
    args: { input: t.arg({ type: ScoreConfigInput, required: true, description: 'The config.' }) },
    resolve: (_root, args, ctx) =>
      scoreConfigs.createScoreConfig(ctx, parseInput(scoreConfigInput, restFields(args.input, { nested: ['categories'] }), 'body')),
  }),
  updateScoreConfig: t.field({
    type: ScoreConfigRef,
    description: 'Changes a score config, or archives it (`isArchived: true`); configs are never deleted.',
    args: {
      id: t.arg.globalID({ for: ScoreConfigRef, required: true, description: 'The global id of a ScoreConfig.' }),
      input: t.arg({ type: ScoreConfigPatchInput, required: true, description: 'The fields to change.' }),
    },
    resolve: (_root, args, ctx) =>
      scoreConfigs.updateScoreConfig(ctx, args.id.id, parseInput(scoreConfigPatch, restFields(args.input, { nested: ['categories'] }), 'body')),
  }),
}));
