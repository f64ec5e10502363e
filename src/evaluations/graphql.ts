// GraphQL types of automatic evaluations: the contract's Evaluation (2.4), EvaluationScenario
// (2.3) and Result (2.2), with the run's progress beside them.
import { builder } from '../shared/graphql/builder.js';
import { App, Variant } from '../apps/graphql.js';
import { EvaluatorConfig } from '../evaluators/graphql.js';
import { Testset } from '../testsets/graphql.js';
import { databaseIds, globalId } from '../shared/graphql/ids.js';
import { ConfidenceInterval } from '../shared/graphql/interval.js';
import { restFields } from '../shared/graphql/names.js';
import { asArray } from '../shared/json.js';
import type { EvaluationProgress } from '../shared/events.js';
import { parseInput } from '../shared/validation.js';
import { createEvaluationInput, deleteEvaluationsInput } from './inputs.js';
import * as evaluations from './operations.js';
import { progressStream } from './progress.js';
import type { Result as ResultShape, ResultError as ResultErrorShape } from './results.js';
import { evaluationTotals, scoreResult, statusResult } from './shapes.js';

const ResultErrorRef = builder.objectRef<ResultErrorShape>('ResultError').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    stacktrace: t.exposeString('stacktrace', { nullable: true }),
  }),
});

export const ResultRef = builder.objectRef<ResultShape>('Result').implement({
  description: 'A typed value: a status, a score (bool, number, …), a cost, a latency, or an error.',
  fields: (t) => ({
    type: t.exposeString('type'),
    value: t.field({ type: 'JSON', nullable: true, resolve: (parent) => parent.value }),
    error: t.field({ type: ResultErrorRef, nullable: true, resolve: (parent) => parent.error }),
  }),
});

const Progress = builder.objectRef<EvaluationProgress>('EvaluationProgress').implement({
  fields: (t) => ({
    evaluationId: t.id({ resolve: (progress) => globalId('Evaluation', progress.evaluation_id) }),
    status: t.exposeString('status'),
    total: t.exposeInt('total', { description: 'Test cases to run.' }),
    done: t.exposeInt('done', { description: 'Test cases stored so far.' }),
    errors: t.exposeInt('errors', { description: 'Stored test cases with an error result.' }),
  }),
});

type StoredAggregate = ResultShape & { count: number; errors: number; stddev: number | null; ci_low: number | null; ci_high: number | null };
const stored = (row: { aggregate: unknown }) => row.aggregate as StoredAggregate | null;

builder.prismaObject('EvaluationEvaluator', {
  name: 'AggregatedResult',
  fields: (t) => ({
    evaluatorConfig: t.relation('evaluatorConfig'),
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
  fields: (t) => ({
    evaluatorConfigId: t.id({ resolve: (cost) => globalId('EvaluatorConfig', cost.evaluator_config_id) }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD; null when none of its calls had a known price.' }),
    calls: t.exposeInt('calls', { description: 'Provider calls it made.' }),
  }),
});

const EvaluatorCostRef = builder.objectRef<evaluations.EvaluatorCost>('EvaluatorCost').implement({
  description:
    "What evaluating cost, apart from the app's cost: the provider calls of LLM judges and embedding models, each recorded as an EVALUATOR span in its case's trace.",
  fields: (t) => ({
    totalCost: t.exposeFloat('total_cost', { nullable: true, description: 'USD; null when none of the calls had a known price.' }),
    calls: t.exposeInt('calls'),
    evaluators: t.field({ type: [EvaluatorCallsCost], resolve: (cost) => cost.evaluators }),
  }),
});

const EvaluationRef = builder.prismaNode('Evaluation', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    appId: t.id({ resolve: (e) => globalId('App', e.appId) }),
    variantIds: t.idList({ resolve: (e) => [globalId('Variant', e.variantId)] }),
    variantNames: t.stringList({ resolve: (e) => [e.variantName] }),
    variantRevisionIds: t.idList({ resolve: (e) => [globalId('VariantRevision', e.variantRevisionId)] }),
    revisions: t.stringList({ resolve: (e) => [String(e.revision)] }),
    testsetId: t.id({ nullable: true, resolve: (e) => globalId('Testset', e.testsetId) }),
    testsetName: t.exposeString('testsetName', { nullable: true }),
    status: t.field({ type: ResultRef, resolve: statusResult }),
    aggregatedResults: t.relation('evaluators', {
      query: { where: { aggregate: { not: { equals: null } } }, orderBy: { position: 'asc' } },
    }),
    averageCost: t.field({ type: ResultRef, nullable: true, resolve: (e) => evaluationTotals(e).average_cost }),
    totalCost: t.field({ type: ResultRef, nullable: true, resolve: (e) => evaluationTotals(e).total_cost }),
    averageLatency: t.field({ type: ResultRef, nullable: true, resolve: (e) => evaluationTotals(e).average_latency }),
    progress: t.field({ type: Progress, resolve: (e) => evaluations.progressOf(e) }),
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
        resolve: (query, evaluation, _args, ctx) => evaluations.listScenarios(ctx, evaluation.id, query),
      },
      ScenarioConnection,
    ),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const ScenarioOutput = builder.objectRef<{ result: ResultShape; cost: number | null; latency: number | null }>('ScenarioOutput').implement({
  fields: (t) => ({
    result: t.field({ type: ResultRef, resolve: (o) => o.result }),
    cost: t.exposeFloat('cost', { nullable: true, description: 'USD.' }),
    latency: t.exposeFloat('latency', { nullable: true, description: 'Seconds.' }),
  }),
});

builder.prismaObject('EvaluationScenarioResult', {
  name: 'ScenarioResult',
  fields: (t) => ({
    evaluatorConfigId: t.id({ resolve: (result) => globalId('EvaluatorConfig', result.evaluatorConfigId) }),
    result: t.field({ type: ResultRef, resolve: scoreResult }),
  }),
});

const ScenarioRef = builder.prismaNode('EvaluationScenario', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    evaluationId: t.id({ resolve: (s) => globalId('Evaluation', s.evaluationId) }),
    position: t.exposeInt('position', { description: 'Index of the test case in its test set.' }),
    inputs: t.field({ type: 'JSON', resolve: (s) => asArray(s.inputs) }),
    outputs: t.field({
      type: [ScenarioOutput],
      resolve: (s) => [{ result: s.output as unknown as ResultShape, cost: s.cost, latency: s.latency }],
    }),
    correctAnswers: t.field({ type: 'JSON', resolve: (s) => asArray(s.correctAnswers) }),
    isPinned: t.exposeBoolean('isPinned'),
    note: t.exposeString('note'),
    traceId: t.exposeString('traceId', { nullable: true }),
    results: t.relation('results'),
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
    args: { id: t.arg.globalID({ for: EvaluationRef, required: true }) },
    resolve: (query, _root, args, ctx) => evaluations.getEvaluation(ctx, args.id.id, query),
  }),
  evaluations: t.prismaConnection(
    {
      type: 'Evaluation',
      cursor: 'id',
      args: { appId: t.arg.globalID({ for: App }) },
      resolve: (query, _root, args, ctx) => evaluations.listEvaluations(ctx, { app_id: args.appId?.id }, query),
    },
    EvaluationConnection,
  ),
}));

const ComparisonRow = builder.objectRef<Awaited<ReturnType<typeof evaluations.compareEvaluations>>['rows'][number]>('EvaluationComparisonRow').implement({
  description: 'One test case across several evaluations.',
  fields: (t) => ({
    position: t.exposeInt('position'),
    inputs: t.field({ type: 'JSON', resolve: (row) => asArray(row.inputs) }),
    correctAnswers: t.field({ type: 'JSON', resolve: (row) => asArray(row.correct_answers) }),
    scenarios: t.field({
      type: [ScenarioRef],
      nullable: { list: false, items: true },
      description: "The compared evaluations' scenarios in the order asked; null where one has none for this case.",
      resolve: (row) => row.cells,
    }),
  }),
});

const RateLimitInput = builder.inputType('RateLimitInput', {
  fields: (t) => ({
    batchSize: t.int({ required: true }),
    maxRetries: t.int({ required: true }),
    retryDelay: t.int({ required: true }),
    delayBetweenBatches: t.int({ required: true }),
  }),
});

const CreateEvaluationInput = builder.inputType('CreateEvaluationInput', {
  fields: (t) => ({
    appId: t.globalID({ for: App, required: true }),
    variantIds: t.globalIDList({ for: Variant, required: true }),
    evaluatorConfigIds: t.globalIDList({ for: EvaluatorConfig, required: true }),
    testsetId: t.globalID({ for: Testset, required: true }),
    rateLimit: t.field({ type: RateLimitInput, required: true }),
    lmProvidersKeys: t.field({ type: 'JSON' }),
    correctAnswerColumn: t.string(),
  }),
});

builder.queryField('evaluationComparison', (t) =>
  t.field({
    type: [ComparisonRow],
    args: { ids: t.arg.globalIDList({ for: EvaluationRef, required: true }) },
    resolve: async (_root, args, ctx) => (await evaluations.compareEvaluations(ctx, databaseIds(args.ids))).rows,
  }),
);

builder.mutationFields((t) => ({
  createEvaluations: t.field({
    type: [EvaluationRef],
    description: 'One evaluation per variant, answered at once; the runs proceed in the background.',
    args: { input: t.arg({ type: CreateEvaluationInput, required: true }) },
    resolve: (_root, args, ctx) =>
      evaluations.createEvaluations(
        ctx,
        parseInput(createEvaluationInput, restFields(args.input, { nested: ['rateLimit'], names: { evaluatorConfigIds: 'evaluators_configs' } }), 'body'),
      ),
  }),
  cancelEvaluation: t.field({
    type: EvaluationRef,
    args: { id: t.arg.globalID({ for: EvaluationRef, required: true }) },
    resolve: (_root, args, ctx) => evaluations.cancelEvaluation(ctx, args.id.id),
  }),
  deleteEvaluations: t.idList({
    description: 'Deletes the evaluations; answers their global ids.',
    args: { ids: t.arg.globalIDList({ for: EvaluationRef, required: true }) },
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
    args: { id: t.arg.globalID({ for: EvaluationRef, required: true }) },
    subscribe: (_root, args, ctx) => progressStream(ctx, args.id.id),
    resolve: (progress) => progress,
  }),
);
