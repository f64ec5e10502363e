// GraphQL types of automatic evaluations: the contract's Evaluation (2.4), EvaluationScenario
// (2.3) and Result (2.2), with the run's progress beside them.
import { builder } from '../graphql/builder.js';
import { asArray } from '../shared/json.js';
import * as evaluations from './operations.js';
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

const Progress = builder.objectRef<{ total: number; done: number; errors: number }>('EvaluationProgress').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Test cases to run.' }),
    done: t.exposeInt('done', { description: 'Test cases stored so far.' }),
    errors: t.exposeInt('errors', { description: 'Stored test cases with an error result.' }),
  }),
});

builder.prismaObject('EvaluationEvaluator', {
  name: 'AggregatedResult',
  fields: (t) => ({
    evaluator_config: t.relation('evaluatorConfig'),
    result: t.field({
      type: ResultRef,
      nullable: true,
      description: 'Null until the evaluation is aggregated.',
      resolve: (row) => (row.aggregate ? (row.aggregate as unknown as ResultShape) : null),
    }),
  }),
});

builder.prismaObject('Evaluation', {
  fields: (t) => ({
    id: t.exposeID('id'),
    app_id: t.exposeID('appId'),
    project_id: t.exposeID('projectId'),
    variant_ids: t.stringList({ resolve: (e) => [e.variantId] }),
    variant_names: t.stringList({ resolve: (e) => [e.variantName] }),
    variant_revision_ids: t.stringList({ resolve: (e) => [e.variantRevisionId] }),
    revisions: t.stringList({ resolve: (e) => [String(e.revision)] }),
    testset_id: t.exposeID('testsetId', { nullable: true }),
    testset_name: t.exposeString('testsetName', { nullable: true }),
    status: t.field({ type: ResultRef, resolve: statusResult }),
    aggregated_results: t.relation('evaluators', {
      query: { where: { aggregate: { not: { equals: null } } }, orderBy: { position: 'asc' } },
    }),
    average_cost: t.field({ type: ResultRef, nullable: true, resolve: (e) => evaluationTotals(e).average_cost }),
    total_cost: t.field({ type: ResultRef, nullable: true, resolve: (e) => evaluationTotals(e).total_cost }),
    average_latency: t.field({ type: ResultRef, nullable: true, resolve: (e) => evaluationTotals(e).average_latency }),
    progress: t.field({ type: Progress, resolve: (e) => e }),
    scenarios: t.relatedConnection('scenarios', { cursor: 'id', query: { orderBy: { position: 'asc' } } }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
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
    evaluator_config: t.exposeID('evaluatorConfigId'),
    result: t.field({ type: ResultRef, resolve: scoreResult }),
  }),
});

builder.prismaObject('EvaluationScenario', {
  fields: (t) => ({
    id: t.exposeID('id'),
    evaluation_id: t.exposeID('evaluationId'),
    position: t.exposeInt('position', { description: 'Index of the test case in its test set.' }),
    inputs: t.field({ type: 'JSON', resolve: (s) => asArray(s.inputs) }),
    outputs: t.field({
      type: [ScenarioOutput],
      resolve: (s) => [{ result: s.output as unknown as ResultShape, cost: s.cost, latency: s.latency }],
    }),
    correct_answers: t.field({ type: 'JSON', resolve: (s) => asArray(s.correctAnswers) }),
    is_pinned: t.exposeBoolean('isPinned'),
    note: t.exposeString('note'),
    trace_id: t.exposeString('traceId', { nullable: true }),
    results: t.relation('results'),
  }),
});

builder.queryFields((t) => ({
  evaluation: t.prismaField({
    type: 'Evaluation',
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => evaluations.getEvaluation(ctx, String(args.id), query),
  }),
  evaluations: t.prismaConnection({
    type: 'Evaluation',
    cursor: 'id',
    args: { app_id: t.arg.id() },
    resolve: (query, _root, args, ctx) =>
      evaluations.listEvaluations(ctx, { app_id: args.app_id ? String(args.app_id) : undefined }, query),
  }),
}));
