// GraphQL of human evaluations: the contract's HumanEvaluation (2.6) and its scenarios (2.7), with
// the judgements of each judge, the statistics REST does not have (win rates with 95% intervals,
// position bias, agreement between judges), the next scenario for a judging screen, and the
// mutations create, judge, status and delete. Inputs are validated by the REST schemas.
import { builder } from '../shared/graphql/builder.js';
import { asArray } from '../shared/json.js';
import { parseInput } from '../shared/validation.js';
import {
  ANONYMOUS_JUDGE,
  createHumanEvaluationInput,
  deleteHumanEvaluationsInput,
  evaluationStatuses,
  judgeScenarioInput,
  updateHumanEvaluationInput,
} from './inputs.js';
import * as humanEvaluations from './operations.js';
import type { ScenarioInput, StoredOutput } from './operations.js';
import {
  type Agreement,
  type HumanStatistics,
  type Interval,
  type JudgePair,
  type PositionBias,
  type VariantStatistics,
  resultsData,
  statistics,
  votesData,
} from './statistics.js';

const HumanEvaluationType = builder.enumType('HumanEvaluationType', {
  values: ['human_a_b_testing', 'single_model_test'] as const,
});

const HumanEvaluationStatus = builder.enumType('HumanEvaluationStatus', { values: evaluationStatuses });

const HumanProgress = builder.objectRef<{ total: number; done: number; errors: number }>('HumanEvaluationProgress').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Scenarios (test cases).' }),
    done: t.exposeInt('done', { description: 'Scenarios whose outputs are there.' }),
    errors: t.exposeInt('errors', { description: 'Scenarios where a variant call failed.' }),
  }),
});

const HumanInterval = builder.objectRef<Interval>('HumanConfidenceInterval').implement({
  description: 'A 95% confidence interval.',
  fields: (t) => ({ low: t.exposeFloat('low'), high: t.exposeFloat('high') }),
});

const VariantStats = builder.objectRef<VariantStatistics>('HumanVariantStatistics').implement({
  fields: (t) => ({
    variant_id: t.exposeID('variant_id'),
    variant_name: t.exposeString('variant_name'),
    wins: t.exposeInt('wins', { description: 'A/B: judgements that preferred this variant.' }),
    losses: t.exposeInt('losses', { description: 'A/B: judgements that preferred the other variant.' }),
    ties: t.exposeInt('ties', { description: 'A/B: judgements "1" (both good) or "0" (both bad).' }),
    win_rate: t.exposeFloat('win_rate', { nullable: true, description: 'wins / (wins + losses); ties left out.' }),
    win_rate_interval: t.field({
      type: HumanInterval,
      nullable: true,
      description: "Wilson's 95% interval of the win rate.",
      resolve: (s) => s.win_rate_interval,
    }),
    scores: t.exposeInt('scores', { description: 'Single model: scores given.' }),
    mean_score: t.exposeFloat('mean_score', { nullable: true }),
    score_stddev: t.exposeFloat('score_stddev', { nullable: true }),
    score_interval: t.field({
      type: HumanInterval,
      nullable: true,
      description: "Student's t 95% interval of the mean score.",
      resolve: (s) => s.score_interval,
    }),
  }),
});

const PositionBiasRef = builder.objectRef<PositionBias>('HumanPositionBias').implement({
  description: 'How often the output shown on the left won an A/B judgement (0.5 when the side does not matter).',
  fields: (t) => ({
    decisive: t.exposeInt('decisive', { description: 'Judgements that preferred one output.' }),
    left_wins: t.exposeInt('left_wins'),
    right_wins: t.exposeInt('right_wins'),
    left_rate: t.exposeFloat('left_rate', { nullable: true }),
    left_rate_interval: t.field({ type: HumanInterval, nullable: true, resolve: (b) => b.left_rate_interval }),
    p_value: t.exposeFloat('p_value', { nullable: true, description: 'Two-sided exact binomial test of left_rate = 0.5.' }),
  }),
});

const JudgePairRef = builder.objectRef<JudgePair>('HumanJudgePair').implement({
  fields: (t) => ({
    judge_a: t.exposeString('judge_a'),
    judge_b: t.exposeString('judge_b'),
    scenarios: t.exposeInt('scenarios', { description: 'Scenarios both judged.' }),
    observed_agreement: t.exposeFloat('observed_agreement'),
    cohen_kappa: t.exposeFloat('cohen_kappa', { nullable: true }),
  }),
});

const AgreementRef = builder.objectRef<Agreement>('HumanAgreement').implement({
  description: "Agreement between judges on the scenarios at least two judged: Fleiss' kappa overall, Cohen's per pair.",
  fields: (t) => ({
    scenarios: t.exposeInt('scenarios'),
    judgements: t.exposeInt('judgements'),
    observed_agreement: t.exposeFloat('observed_agreement', { nullable: true }),
    expected_agreement: t.exposeFloat('expected_agreement', { nullable: true }),
    fleiss_kappa: t.exposeFloat('fleiss_kappa', { nullable: true }),
    pairs: t.field({ type: [JudgePairRef], resolve: (a) => a.pairs }),
  }),
});

const StatisticsRef = builder.objectRef<HumanStatistics>('HumanEvaluationStatistics').implement({
  description: 'Every judgement counts once (one judge, one scenario); a scenario no one judged counts as one row without a verdict.',
  fields: (t) => ({
    scenarios: t.exposeInt('scenarios'),
    judged_scenarios: t.exposeInt('judged_scenarios'),
    judgements: t.exposeInt('judgements', { description: 'Judgements with a vote (A/B) or a score (single model).' }),
    judges: t.exposeStringList('judges'),
    positive_votes: t.exposeInt('positive_votes', { description: 'A/B: "1" votes (both good).' }),
    flag_votes: t.exposeInt('flag_votes', { description: 'A/B: "0" votes (both bad).' }),
    variants: t.field({ type: [VariantStats], resolve: (s) => s.variants }),
    position_bias: t.field({ type: PositionBiasRef, nullable: true, resolve: (s) => s.position_bias }),
    agreement: t.field({ type: AgreementRef, resolve: (s) => s.agreement }),
  }),
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
    inputs: t.stringList({ description: 'The test set columns shown to judges.', resolve: (e) => asArray<string>(e.inputs) }),
    status: t.exposeString('status'),
    status_error: t.string({
      nullable: true,
      description: 'Why generating the outputs failed (EVALUATION_FAILED).',
      resolve: (e) => (e.statusError as { message?: string } | null)?.message ?? null,
    }),
    progress: t.field({ type: HumanProgress, resolve: (e) => ({ total: e.total, done: e.done, errors: e.errors }) }),
    scenarios: t.relatedConnection('scenarios', { cursor: 'id', query: { orderBy: { position: 'asc' } } }),
    statistics: t.field({
      type: StatisticsRef,
      resolve: async (e, _args, ctx) => statistics(await humanEvaluations.evaluationFacts(ctx, e.id)),
    }),
    results: t.field({
      type: 'JSON',
      description: 'What GET /human-evaluations/{id}/results answers: {votes_data} (A/B) or {results_data} (single model).',
      resolve: async (e, _args, ctx) => {
        const facts = await humanEvaluations.evaluationFacts(ctx, e.id);
        return facts.evaluationType === 'human_a_b_testing' ? { votes_data: votesData(facts) } : { results_data: resultsData(facts) };
      },
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const HumanScenarioInputRef = builder.objectRef<ScenarioInput>('HumanScenarioInput').implement({
  fields: (t) => ({ input_name: t.exposeString('input_name'), input_value: t.exposeString('input_value') }),
});

const HumanScenarioOutputRef = builder.objectRef<StoredOutput>('HumanScenarioOutput').implement({
  fields: (t) => ({
    variant_id: t.exposeID('variant_id'),
    variant_output: t.exposeString('variant_output'),
    error: t.string({ nullable: true, description: 'Why the variant gave no output; null when it did.', resolve: (o) => o.error ?? null }),
    cost: t.float({ nullable: true, description: 'USD.', resolve: (o) => o.cost ?? null }),
    latency: t.float({ nullable: true, description: 'Seconds.', resolve: (o) => o.latency ?? null }),
    trace_id: t.string({ nullable: true, description: 'The trace of the call.', resolve: (o) => o.trace_id ?? null }),
  }),
});

builder.prismaObject('HumanJudgement', {
  fields: (t) => ({
    id: t.exposeID('id'),
    scenario_id: t.exposeID('scenarioId'),
    judge: t.exposeString('judge'),
    vote: t.exposeString('vote', { nullable: true }),
    score: t.exposeInt('score', { nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('HumanEvaluationScenario', {
  fields: (t) => ({
    id: t.exposeID('id'),
    evaluation_id: t.exposeID('humanEvaluationId'),
    position: t.exposeInt('position', { description: 'Index of the test case in its test set.' }),
    inputs: t.field({ type: [HumanScenarioInputRef], resolve: (s) => asArray<ScenarioInput>(s.inputs) }),
    outputs: t.field({
      type: [HumanScenarioOutputRef],
      description: 'In the order of the variants; empty until generated.',
      resolve: (s) => humanEvaluations.storedOutputs(s),
    }),
    display_order: t.stringList({
      description: 'Variant ids left to right as shown to judges, drawn at random per scenario.',
      resolve: (s) => humanEvaluations.displayOrderOf(s),
    }),
    shown_outputs: t.field({
      type: [HumanScenarioOutputRef],
      description: 'The outputs left to right as a judging screen shows them (display_order).',
      resolve: (s) => {
        const outputs = humanEvaluations.storedOutputs(s);
        const order = humanEvaluations.displayOrderOf(s);
        return order.flatMap((id) => outputs.filter((output) => output.variant_id === id));
      },
    }),
    has_error: t.boolean({
      description: 'A variant call failed for this case (its output text records the error).',
      resolve: (s) => humanEvaluations.storedOutputs(s).some((output) => !!output.error),
    }),
    vote: t.exposeString('vote', { nullable: true, description: 'The latest judgement’s vote.' }),
    score: t.exposeInt('score', { nullable: true, description: 'The latest judgement’s score.' }),
    correct_answer: t.exposeString('correctAnswer', { nullable: true }),
    is_pinned: t.exposeBoolean('isPinned'),
    note: t.exposeString('note'),
    judgements: t.relation('judgements', { query: { orderBy: { judge: 'asc' } } }),
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
    resolve: (query, _root, args, ctx) => humanEvaluations.listHumanEvaluations(ctx, { app_id: args.app_id ? String(args.app_id) : undefined }, query),
  }),
  nextHumanScenario: t.prismaField({
    type: 'HumanEvaluationScenario',
    nullable: true,
    description: 'The first scenario (test set order) with its outputs that this judge has not judged yet; null when none is left.',
    args: {
      evaluation_id: t.arg.id({ required: true }),
      judge: t.arg.string({ description: `Defaults to "${ANONYMOUS_JUDGE}".` }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { judge } = parseInput(judgeScenarioInput.pick({ judge: true }), { judge: args.judge ?? undefined }, 'query');
      const id = await humanEvaluations.nextUnjudgedScenarioId(ctx, String(args.evaluation_id), judge ?? ANONYMOUS_JUDGE);
      return id ? humanEvaluations.getHumanScenario(ctx, String(args.evaluation_id), id, query) : null;
    },
  }),
}));

const CreateHumanEvaluationInput = builder.inputType('CreateHumanEvaluationInput', {
  fields: (t) => ({
    app_id: t.id({ required: true }),
    variant_ids: t.idList({ required: true }),
    evaluation_type: t.field({ type: HumanEvaluationType, required: true }),
    inputs: t.stringList({ required: true }),
    testset_id: t.id({ required: true }),
    status: t.field({ type: HumanEvaluationStatus }),
  }),
});

const HumanScenarioOutputInput = builder.inputType('HumanScenarioOutputInput', {
  fields: (t) => ({ variant_id: t.id({ required: true }), variant_output: t.string({ required: true }) }),
});

const JudgeHumanScenarioInput = builder.inputType('JudgeHumanScenarioInput', {
  fields: (t) => ({
    vote: t.string({ description: 'A/B: a variant id of the evaluation, "1" (both good) or "0" (both bad).' }),
    score: t.int({ description: 'Single model: 0–100.' }),
    correct_answer: t.string(),
    outputs: t.field({ type: [HumanScenarioOutputInput] }),
    is_pinned: t.boolean(),
    note: t.string(),
    judge: t.string({ description: `Who judges; defaults to "${ANONYMOUS_JUDGE}".` }),
  }),
});

/** GraphQL's absent fields arrive as undefined, explicit nulls as null: as in a REST body. */
function withoutUndefined(input: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

builder.mutationFields((t) => ({
  createHumanEvaluation: t.prismaField({
    type: 'HumanEvaluation',
    description: 'One scenario per test case; the outputs are generated in the background.',
    args: { input: t.arg({ type: CreateHumanEvaluationInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const created = await humanEvaluations.createHumanEvaluation(ctx, parseInput(createHumanEvaluationInput, withoutUndefined(args.input), 'body'));
      return humanEvaluations.getHumanEvaluation(ctx, created.id, query);
    },
  }),
  judgeHumanScenario: t.prismaField({
    type: 'HumanEvaluationScenario',
    description: "A judge's vote or score on a scenario, and the scenario's own fields (as the REST PUT).",
    args: {
      evaluation_id: t.arg.id({ required: true }),
      scenario_id: t.arg.id({ required: true }),
      input: t.arg({ type: JudgeHumanScenarioInput, required: true }),
    },
    resolve: async (query, _root, args, ctx) => {
      const input = parseInput(judgeScenarioInput, withoutUndefined(args.input), 'body');
      const scenario = await humanEvaluations.judgeScenario(ctx, String(args.evaluation_id), String(args.scenario_id), input);
      return humanEvaluations.getHumanScenario(ctx, String(args.evaluation_id), scenario.id, query);
    },
  }),
  updateHumanEvaluationStatus: t.prismaField({
    type: 'HumanEvaluation',
    args: { id: t.arg.id({ required: true }), status: t.arg({ type: HumanEvaluationStatus, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const { status } = parseInput(updateHumanEvaluationInput, { status: args.status }, 'body');
      await humanEvaluations.updateHumanEvaluationStatus(ctx, String(args.id), status);
      return humanEvaluations.getHumanEvaluation(ctx, String(args.id), query);
    },
  }),
  deleteHumanEvaluations: t.idList({
    args: { ids: t.arg.idList({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { evaluations_ids } = parseInput(deleteHumanEvaluationsInput, { evaluations_ids: args.ids }, 'body');
      await humanEvaluations.deleteHumanEvaluations(ctx, evaluations_ids);
      return evaluations_ids;
    },
  }),
}));
