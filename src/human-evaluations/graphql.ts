// GraphQL types of human evaluations: the contract's HumanEvaluation (2.6) and its scenarios (2.7).
import { builder } from '../graphql/builder.js';
import { asArray } from '../shared/json.js';
import * as humanEvaluations from './operations.js';

const HumanEvaluationType = builder.enumType('HumanEvaluationType', {
  values: ['human_a_b_testing', 'single_model_test'] as const,
});

builder.prismaObject('HumanEvaluation', {
  fields: (t) => ({
    id: t.exposeID('id'),
    app_id: t.exposeID('appId'),
    project_id: t.exposeID('projectId'),
    evaluation_type: t.expose('evaluationType', { type: HumanEvaluationType }),
    variant_ids: t.stringList({ resolve: (e) => asArray<string>(e.variantIds) }),
    variant_names: t.stringList({ resolve: (e) => asArray<string>(e.variantNames) }),
    variants_revision_ids: t.stringList({ resolve: (e) => asArray<string>(e.variantRevisionIds) }),
    revisions: t.stringList({ resolve: (e) => asArray(e.revisions).map(String) }),
    testset_id: t.exposeID('testsetId'),
    testset_name: t.exposeString('testsetName'),
    status: t.exposeString('status'),
    scenarios: t.relatedConnection('scenarios', { cursor: 'id', query: { orderBy: { position: 'asc' } } }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('HumanEvaluationScenario', {
  fields: (t) => ({
    id: t.exposeID('id'),
    evaluation_id: t.exposeID('humanEvaluationId'),
    inputs: t.field({ type: 'JSON', resolve: (s) => asArray(s.inputs) }),
    outputs: t.field({ type: 'JSON', resolve: (s) => asArray(s.outputs) }),
    vote: t.exposeString('vote', { nullable: true }),
    score: t.exposeInt('score', { nullable: true }),
    correct_answer: t.exposeString('correctAnswer', { nullable: true }),
    is_pinned: t.exposeBoolean('isPinned'),
    note: t.exposeString('note'),
  }),
});

builder.queryFields((t) => ({
  humanEvaluation: t.prismaField({
    type: 'HumanEvaluation',
    nullable: true,
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => humanEvaluations.getHumanEvaluation(ctx, String(args.id), query),
  }),
  humanEvaluations: t.prismaConnection({
    type: 'HumanEvaluation',
    cursor: 'id',
    args: { app_id: t.arg.id() },
    resolve: (query, _root, args, ctx) =>
      humanEvaluations.listHumanEvaluations(ctx, { app_id: args.app_id ? String(args.app_id) : undefined }, query),
  }),
}));
