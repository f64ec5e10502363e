// GraphQL types of automatic evaluations: the contract's Evaluation (2.4), EvaluationScenario
// (2.3) and Result (2.2), with the run's progress beside them.
import { builder } from '../shared/graphql/builder.js';
import { App, Variant } from '../apps/graphql.js';
import { EvaluatorConfig } from '../evaluators/graphql.js';
import { Testset } from '../testsets/graphql.js';
import { ScoreRef } from '../scores/graphql.js';
import { scoresLoader } from '../scores/score-reads.js';
import { databaseIds, globalId } from '../shared/graphql/ids.js';
import { ConfidenceInterval } from '../shared/graphql/interval.js';
import { restFields } from '../shared/graphql/names.js';
import { asArray } from '../shared/json.js';
import { type EvaluationProgress, progressOf } from '../evaluation-engine/events.js';
import { parseInput } from '../shared/validation.js';
import { createEvaluationInput, deleteEvaluationsInput } from './inputs.js';
import * as evaluations from './operations.js';
import { progressStream } from './progress.js';
import type { Result as ResultShape, ResultError as ResultErrorShape } from '../evaluators/results.js';
import { evaluationTotals, scoreResult, statusResult } from './responses.js';

const ResultErrorRef = builder.objectRef<ResultErrorShape>('ResultError').implement({
  description: 'Why a Result has no value, or why an evaluation reached its status.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, in words a user can act on.' }),
    stacktrace: t.exposeString('stacktrace', { nullable: true, description: 'Where it went wrong, when that helps; null otherwise.' }),
  }),
});

export const ResultRef = builder.objectRef<ResultShape>('Result').implement({
  description: 'A typed value: a status, a score (bool, number, …), a cost, a latency, or an error.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'One of status, text, json, bool, number, cost, latency or error (docs/contract.md 2.2).' }),
    value: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Of the type: a status name, a text, any JSON, a boolean, a number, USD (cost) or seconds (latency); null for an error.',
      resolve: (parent) => parent.value,
    }),
    error: t.field({
      type: ResultErrorRef,
      nullable: true,
      description: 'What went wrong (type error, or a failed status); null otherwise.',
      resolve: (parent) => parent.error,
    }),
  }),
});

const Progress = builder.objectRef<EvaluationProgress>('EvaluationProgress').implement({
  description: "How far an evaluation's run has got (REST `GET /evaluations/{id}/status`).",
  fields: (t) => ({
    evaluationId: t.id({ description: 'Global id of the evaluation.', resolve: (progress) => globalId('Evaluation', progress.evaluation_id) }),
    status: t.exposeString('status', {
      description: 'The evaluation status, such as EVALUATION_STARTED (docs/evaluations.md#status-and-its-transitions).',
    }),
    total: t.exposeInt('total', { description: 'Test cases to run.' }),
    done: t.exposeInt('done', { description: 'Test cases stored so far.' }),
    errors: t.exposeInt('errors', { description: 'Stored test cases with an error result.' }),
  }),
});

type StoredAggregate = ResultShape & { count: number; errors: number; stddev: number | null; ci_low: number | null; ci_high: number | null };
const stored = (row: { aggregate: unknown }) => row.aggregate as StoredAggregate | null;

builder.prismaObject('EvaluationEvaluator', {
  name: 'AggregatedResult',
  description: "One evaluator config's results over all the test cases of an evaluation.",
  fields: (t) => ({
    evaluatorConfig: t.relation('evaluatorConfig', { description: 'The config whose results these are.' }),
    result: t.field({
      type: ResultRef,
      nullable: true,
      description: 'The mean of the numeric results (booleans as 1/0) over the cases that did not error; null until aggregated.',
      resolve: (row) => {
        const aggregate = stored(row);
        return aggregate ? { type: aggregate.type, value: aggregate.value, error: aggregate.error } : null;
      },
    }),
    count: t.int({ nullable: true, description: 'Cases scored without error.', resolve: (row) => stored(row)?.count ?? null }),
    errors: t.int({ nullable: true, description: 'Cases whose result is an error.', resolve: (row) => stored(row)?.errors ?? null }),
    stddev: t.float({ nullable: true, description: 'Sample standard deviation of the results.', resolve: (row) => stored(row)?.stddev ?? null }),
    confidenceInterval: t.field({
      type: ConfidenceInterval,
      nullable: true,
      description: "95% interval of the mean: Wilson's for pass/fail evaluators, Student's t otherwise.",
      resolve: (row) => {
        const aggregate = stored(row);
        return aggregate && aggregate.ci_low !== null && aggregate.ci_high !== null ? { low: aggregate.ci_low, high: aggregate.ci_high } : null;
      },
    }),
  }),
});

const EvaluatorCallsCost = builder.objectRef<evaluations.EvaluatorCost['evaluators'][number]>('EvaluatorConfigCost').implement({
  description: "What one evaluator config's provider calls cost in an evaluation.",
  fields: (t) => ({
    evaluatorConfigId: t.id({ description: 'Global id of the config.', resolve: (cost) => globalId('EvaluatorConfig', cost.evaluator_config_id) }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD; null when none of its calls had a known price.' }),
    calls: t.exposeInt('calls', { description: 'Provider calls it made.' }),
  }),
});

const EvaluatorCostRef = builder.objectRef<evaluations.EvaluatorCost>('EvaluatorCost').implement({
  description:
    "What evaluating cost, apart from the app's cost: the provider calls of LLM judges and embedding models, each recorded as an EVALUATOR span in its case's trace.",
  fields: (t) => ({
    totalCost: t.exposeFloat('total_cost', { nullable: true, description: 'USD; null when none of the calls had a known price.' }),
    calls: t.exposeInt('calls', { description: 'Provider calls the evaluators made.' }),
    evaluators: t.field({
      type: [EvaluatorCallsCost],
      description: "Each of the evaluation's configs, in the order they were asked for.",
      resolve: (cost) => cost.evaluators,
    }),
  }),
});

export const EvaluationRef = builder.prismaNode('Evaluation', {
  description: 'A run of one variant revision over a test set, each case scored by evaluator configs (REST `/evaluations`).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    origin: t.exposeString('origin', {
      description: '`assay` for a run Assay made, `external` for one recorded from code (docs/experiments.md); the runner runs only `assay` ones.',
    }),
    description: t.exposeString('description', { nullable: true, description: "A run recorded from code: its caller's description; null otherwise." }),
    metadata: t.expose('metadata', { type: 'JSON', nullable: true, description: "A run recorded from code: its caller's metadata; null otherwise." }),
    appId: t.id({ description: 'Global id of its app.', resolve: (e) => globalId('App', e.appId) }),
    variantIds: t.idList({
      description: "Global id of the variant it runs, alone in a list (REST's shape).",
      resolve: (e) => [globalId('Variant', e.variantId)],
    }),
    variantNames: t.stringList({ description: "The variant's name at creation, alone in a list.", resolve: (e) => [e.variantName] }),
    variantRevisionIds: t.idList({
      description: 'Global id of the revision pinned at creation, alone in a list.',
      resolve: (e) => [globalId('VariantRevision', e.variantRevisionId)],
    }),
    revisions: t.stringList({ description: "That revision's number as text, alone in a list.", resolve: (e) => [String(e.revision)] }),
    testsetId: t.id({
      nullable: true,
      description: 'Global id of the test set it runs over; kept when that test set is deleted.',
      resolve: (e) => globalId('Testset', e.testsetId),
    }),
    testsetName: t.exposeString('testsetName', { nullable: true, description: "The test set's name at creation; kept when it is deleted." }),
    testsetRevision: t.exposeInt('testsetRevision', {
      nullable: true,
      description: 'The test set revision it runs over, pinned at creation (read it as `Testset.revision(number)`).',
    }),
    status: t.field({
      type: ResultRef,
      description: 'A Result of type status: its value the evaluation status, its error why the run failed.',
      resolve: statusResult,
    }),
    evaluatorConfigs: t.field({
      type: [EvaluatorConfig],
      description: 'The configs that score its cases, in the order asked for: known from its creation, so a screen names its columns before any aggregate.',
      select: (_args, _ctx, nestedSelection) => ({
        evaluators: { orderBy: { position: 'asc' }, select: { evaluatorConfig: nestedSelection(true) } },
      }),
      resolve: (e) => e.evaluators.map((row) => row.evaluatorConfig),
    }),
    aggregatedResults: t.relation('evaluators', {
      description: 'One per config, in the order asked, once the run has ended; empty before.',
      query: { where: { aggregate: { not: { equals: null } } }, orderBy: { position: 'asc' } },
    }),
    averageCost: t.field({
      type: ResultRef,
      nullable: true,
      description: "The app's mean cost per case that reports one, a Result of type cost in USD (error when none did); null while the run is under way.",
      resolve: (e) => evaluationTotals(e).average_cost,
    }),
    totalCost: t.field({
      type: ResultRef,
      nullable: true,
      description: "The app's summed cost, a Result of type cost in USD (error when no case reported one); null while the run is under way.",
      resolve: (e) => evaluationTotals(e).total_cost,
    }),
    averageLatency: t.field({
      type: ResultRef,
      nullable: true,
      description: 'The mean latency per case, a Result of type latency in seconds (error when none was measured); null while the run is under way.',
      resolve: (e) => evaluationTotals(e).average_latency,
    }),
    progress: t.field({ type: Progress, description: 'Its status and the cases run so far.', resolve: (e) => progressOf(e) }),
    evaluatorCost: t.field({
      type: EvaluatorCostRef,
      description: "The evaluators' own provider cost (judges, embeddings), kept apart from averageCost/totalCost, which are the app's.",
      resolve: (e, _args, ctx) => evaluations.evaluatorCost(ctx, e.id),
    }),
    // Its own query per evaluation: a nested `take` would load every scenario to cut one page.
    scenarios: t.prismaConnection(
      {
        type: 'EvaluationScenario',
        cursor: 'evaluationId_position',
        description: 'Its scenarios in test set order, as the run stores them (REST `GET /evaluations/{id}/evaluation_scenarios`).',
        resolve: (query, evaluation, _args, ctx) => evaluations.listScenarios(ctx, evaluation.id, query),
      },
      ScenarioConnection,
    ),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When its run last changed it.' }),
  }),
});

const ScenarioOutput = builder.objectRef<{ result: ResultShape; cost: number | null; latency: number | null }>('ScenarioOutput').implement({
  description: "The variant's answer to one test case.",
  fields: (t) => ({
    result: t.field({ type: ResultRef, description: 'The output: a Result of type text, json or error.', resolve: (o) => o.result }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'What the call cost, in USD; null when unknown.' }),
    latency: t.exposeFloat('latency', { nullable: true, description: 'How long the call took, in seconds; null when unknown.' }),
  }),
});

builder.prismaObject('EvaluationScenarioResult', {
  name: 'ScenarioResult',
  description: "One evaluator config's verdict on one test case.",
  fields: (t) => ({
    evaluatorConfigId: t.id({ description: 'Global id of the config.', resolve: (result) => globalId('EvaluatorConfig', result.evaluatorConfigId) }),
    result: t.field({ type: ResultRef, description: "A Result of the evaluator's result type, or of type error.", resolve: scoreResult }),
  }),
});

const ScenarioRef = builder.prismaNode('EvaluationScenario', {
  description: 'One test case of an evaluation: what the variant was sent, what it answered and how it scored (docs/contract.md 2.3).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    evaluationId: t.id({ description: 'Global id of its evaluation.', resolve: (s) => globalId('Evaluation', s.evaluationId) }),
    position: t.exposeInt('position', { description: 'Index of the test case in its test set.' }),
    inputs: t.field({
      type: 'JSON',
      description: 'The test case without its ground-truth columns: `[{name, type: "text", value}]`.',
      resolve: (s) => asArray(s.inputs),
    }),
    outputs: t.field({
      type: [ScenarioOutput],
      description: "Exactly one: the variant's output with its cost and latency.",
      resolve: (s) => [{ result: s.output as unknown as ResultShape, cost: s.cost, latency: s.latency }],
    }),
    correctAnswers: t.field({
      type: 'JSON',
      description: 'The ground-truth columns of the test case: `[{key, value}]`, each value as text.',
      resolve: (s) => asArray(s.correctAnswers),
    }),
    isPinned: t.exposeBoolean('isPinned', { description: "Always false; kept for Agenta's shape." }),
    note: t.exposeString('note', { description: "Always empty; kept for Agenta's shape." }),
    traceId: t.exposeString('traceId', {
      nullable: true,
      description: "The trace of the case's calls (query `trace`); null when none was recorded.",
    }),
    results: t.relation('results', { description: 'One per evaluator config, in the order asked.' }),
    scores: t.field({
      type: [ScoreRef],
      description:
        "The scenario's scores (target SCENARIO), oldest first: one per evaluator result of source EVALUATION, named by its config (docs/scores.md#evaluations), and any given since.",
      resolve: (s, _args, ctx) => scoresLoader(ctx, 'scenarioId').load(s.id),
    }),
  }),
});

const ScenarioConnection = builder.connectionObject(
  { type: ScenarioRef, name: 'EvaluationScenarioConnection', description: "An evaluation's scenarios, a page at a time." },
  { description: 'A scenario and its cursor.' },
);
const EvaluationConnection = builder.connectionObject(
  { type: EvaluationRef, name: 'EvaluationConnection', description: 'Evaluations, a page at a time.' },
  { description: 'An evaluation and its cursor.' },
);

builder.queryFields((t) => ({
  evaluation: t.prismaField({
    type: 'Evaluation',
    nullable: true,
    description: 'The evaluation with this global id; null, with a NOT_FOUND error, when the project has none.',
    args: { id: t.arg.globalID({ for: EvaluationRef, required: true, description: 'Global id of the evaluation.' }) },
    resolve: (query, _root, args, ctx) => evaluations.getEvaluation(ctx, args.id.id, query),
  }),
  evaluations: t.prismaConnection(
    {
      type: 'Evaluation',
      cursor: 'id',
      description: "The project's evaluations in creation order (REST `GET /evaluations`).",
      args: { appId: t.arg.globalID({ for: App, description: 'Only the evaluations of this app.' }) },
      resolve: (query, _root, args, ctx) => evaluations.listEvaluations(ctx, { app_id: args.appId?.id }, query),
    },
    EvaluationConnection,
  ),
}));

type Comparison = Awaited<ReturnType<typeof evaluations.compareEvaluations>>;

const ComparisonRow = builder.objectRef<Comparison['rows'][number] & Pick<Comparison, 'revisionsDiffer'>>('EvaluationComparisonRow').implement({
  description: 'One test case across several evaluations.',
  fields: (t) => ({
    position: t.exposeInt('position', { description: 'Index of the test case in its test set.' }),
    inputs: t.field({ type: 'JSON', description: "The case's inputs, as EvaluationScenario.inputs.", resolve: (row) => asArray(row.inputs) }),
    correctAnswers: t.field({
      type: 'JSON',
      description: "The case's ground truth, as EvaluationScenario.correctAnswers.",
      resolve: (row) => asArray(row.correct_answers),
    }),
    scenarios: t.field({
      type: [ScenarioRef],
      nullable: { list: false, items: true },
      description: "The compared evaluations' scenarios in the order asked; null where one has none for this case.",
      resolve: (row) => row.cells,
    }),
    revisionsDiffer: t.exposeBoolean('revisionsDiffer', {
      description: 'Whether the compared evaluations ran on different test sets or test set revisions (the same on every row).',
    }),
    caseDiffers: t.exposeBoolean('caseDiffers', {
      description: 'Whether the scenarios of this row ran different versions of the case (or one has none): the revisions changed it.',
    }),
  }),
});

const RateLimitInput = builder.inputType('RateLimitInput', {
  description: 'How fast each evaluation calls its variant (docs/evaluations.md#rate_limit).',
  fields: (t) => ({
    batchSize: t.int({ required: true, description: 'Calls at once, 1 to 1000; batches run one after another.' }),
    maxRetries: t.int({ required: true, description: 'Retries of a call that failed for a transient reason, 0 to 20.' }),
    retryDelay: t.int({ required: true, description: 'Seconds between retries, 0 to 3600; a Retry-After header replaces it.' }),
    delayBetweenBatches: t.int({ required: true, description: 'Seconds between two batches, 0 to 3600.' }),
  }),
});

const CreateEvaluationInput = builder.inputType('CreateEvaluationInput', {
  description: 'Variants of an app to run over a test set and the configs scoring them (REST `POST /evaluations`).',
  fields: (t) => ({
    appId: t.globalID({ for: App, required: true, description: 'Global id of the app.' }),
    variantIds: t.globalIDList({ for: Variant, required: true, description: 'Global ids of variants of that app, at least one; one evaluation each.' }),
    evaluatorConfigIds: t.globalIDList({
      for: EvaluatorConfig,
      required: true,
      description: 'Global ids of the configs scoring every case, at least one (REST `evaluators_configs`).',
    }),
    testsetId: t.globalID({ for: Testset, required: true, description: 'Global id of the test set to run over.' }),
    rateLimit: t.field({ type: RateLimitInput, required: true, description: 'How fast to call the variants.' }),
    lmProvidersKeys: t.field({
      type: 'JSON',
      description: 'Provider keys for this run, strings under `<PROVIDER>_API_KEY` or `<PROVIDER>_BASE_URL`; kept sealed only while it runs.',
    }),
    correctAnswerColumn: t.string({
      description: 'The ground-truth column for configs that name none; absent, `correct_answer` (docs/evaluations.md#ground-truth).',
    }),
  }),
});

builder.queryField('evaluationComparison', (t) =>
  t.field({
    type: [ComparisonRow],
    description: 'Every test case with the scenarios of the given evaluations side by side, in test set order.',
    args: {
      ids: t.arg.globalIDList({ for: EvaluationRef, required: true, description: 'Global ids of the evaluations, in the order each row lists them.' }),
    },
    resolve: async (_root, args, ctx) => {
      const { rows, revisionsDiffer } = await evaluations.compareEvaluations(ctx, databaseIds(args.ids));
      return rows.map((row) => ({ ...row, revisionsDiffer }));
    },
  }),
);

builder.mutationFields((t) => ({
  createEvaluations: t.field({
    type: [EvaluationRef],
    description: 'One evaluation per variant, answered at once; the runs proceed in the background.',
    args: { input: t.arg({ type: CreateEvaluationInput, required: true, description: 'What to run and how fast.' }) },
    resolve: (_root, args, ctx) =>
      evaluations.createEvaluations(
        ctx,
        parseInput(createEvaluationInput, restFields(args.input, { nested: ['rateLimit'], names: { evaluatorConfigIds: 'evaluators_configs' } }), 'body'),
      ),
  }),
  cancelEvaluation: t.field({
    type: EvaluationRef,
    description: 'Stops an evaluation that has not ended, keeping its stored scenarios; an ended one is a CONFLICT error.',
    args: { id: t.arg.globalID({ for: EvaluationRef, required: true, description: 'Global id of the evaluation.' }) },
    resolve: (_root, args, ctx) => evaluations.cancelEvaluation(ctx, args.id.id),
  }),
  deleteEvaluations: t.idList({
    description: 'Deletes the evaluations with their scenarios (their traces stay), or none if one is unknown; answers their global ids.',
    args: { ids: t.arg.globalIDList({ for: EvaluationRef, required: true, description: 'Global ids of the evaluations, at least one.' }) },
    resolve: async (_root, args, ctx) => {
      const { evaluations_ids } = parseInput(deleteEvaluationsInput, { evaluations_ids: databaseIds(args.ids) }, 'body');
      await evaluations.deleteEvaluations(ctx, evaluations_ids);
      return evaluations_ids.map((id) => globalId('Evaluation', id));
    },
  }),
}));

builder.subscriptionField('evaluationProgress', (t) =>
  t.field({
    type: Progress,
    description: 'The progress of an evaluation: its state now, then each change until it ends.',
    args: { id: t.arg.globalID({ for: EvaluationRef, required: true, description: 'Global id of the evaluation.' }) },
    subscribe: (_root, args, ctx) => progressStream(ctx, args.id.id),
    resolve: (progress) => progress,
  }),
);
