// GraphQL of human evaluations: the contract's HumanEvaluation (2.6) and its scenarios (2.7), with
// the judgements of each judge, the statistics REST does not have (win rates with 95% intervals,
// position bias, agreement between judges), the next scenario for a judging screen, and the
// mutations create, judge, status and delete. Inputs are validated by the REST schemas.
import { builder } from '../shared/graphql/builder.js';
import { decodeGlobalID } from '@pothos/plugin-relay';
import { App, Variant } from '../apps/graphql.js';
import { Testset } from '../testsets/graphql.js';
import { ValidationError } from '../shared/errors.js';
import { databaseIds, globalId } from '../shared/graphql/ids.js';
import { ConfidenceInterval } from '../shared/graphql/interval.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { asArray } from '../shared/json.js';
import { parseInput } from '../shared/validation.js';
import {
  ANONYMOUS_JUDGE,
  createHumanEvaluationInput,
  deleteHumanEvaluationsInput,
  evaluationStatuses,
  humanEvaluationTypes,
  judgeScenarioInput,
  updateHumanEvaluationInput,
} from './inputs.js';
import * as humanEvaluations from './operations.js';
import type { ScenarioInput, StoredOutput } from './operations.js';
import {
  type Agreement,
  type HumanStatistics,
  type JudgePair,
  type PositionBias,
  type VariantStatistics,
  evaluationFacts,
  resultsData,
  statistics,
  votesData,
} from './statistics.js';

// An A/B vote names the preferred variant by its global id, as every id in GraphQL does; "1" (both
// good) and "0" (both bad) are votes as they are (docs/graphql.md#ids).
const VOTE = 'the global id of the preferred variant, "1" (both good) or "0" (both bad).';
const plainVotes = ['0', '1'];

function voteOut(vote: string | null): string | null {
  return vote === null || plainVotes.includes(vote) ? vote : globalId('Variant', vote);
}

function voteIn(vote: string): string {
  if (plainVotes.includes(vote)) return vote;
  let decoded: { typename: string; id: string } | undefined;
  try {
    decoded = decodeGlobalID(vote);
  } catch {
    decoded = undefined;
  }
  if (decoded?.typename !== 'Variant') throw ValidationError.at(['body', 'vote'], `Input should be ${VOTE}`, 'value_error');
  return decoded.id;
}

const HumanEvaluationType = builder.enumType('HumanEvaluationType', { values: upperCaseValues(humanEvaluationTypes) });

const HumanEvaluationStatus = builder.enumType('HumanEvaluationStatus', { values: evaluationStatuses });

const HumanProgress = builder.objectRef<{ total: number; done: number; errors: number }>('HumanEvaluationProgress').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Scenarios (test cases).' }),
    done: t.exposeInt('done', { description: 'Scenarios whose outputs are there.' }),
    errors: t.exposeInt('errors', { description: 'Scenarios where a variant call failed.' }),
  }),
});

const VariantStats = builder.objectRef<VariantStatistics>('HumanVariantStatistics').implement({
  fields: (t) => ({
    variantId: t.id({ resolve: (s) => globalId('Variant', s.variant_id) }),
    variantName: t.exposeString('variant_name'),
    wins: t.exposeInt('wins', { description: 'A/B: judgements that preferred this variant.' }),
    losses: t.exposeInt('losses', { description: 'A/B: judgements that preferred the other variant.' }),
    ties: t.exposeInt('ties', { description: 'A/B: judgements "1" (both good) or "0" (both bad).' }),
    winRate: t.exposeFloat('win_rate', { nullable: true, description: 'wins / (wins + losses); ties left out.' }),
    winRateInterval: t.field({
      type: ConfidenceInterval,
      nullable: true,
      description: "Wilson's 95% interval of the win rate.",
      resolve: (s) => s.win_rate_interval,
    }),
    scores: t.exposeInt('scores', { description: 'Single model: scores given.' }),
    meanScore: t.exposeFloat('mean_score', { nullable: true }),
    scoreStddev: t.exposeFloat('score_stddev', { nullable: true }),
    scoreInterval: t.field({
      type: ConfidenceInterval,
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
    leftWins: t.exposeInt('left_wins'),
    rightWins: t.exposeInt('right_wins'),
    leftRate: t.exposeFloat('left_rate', { nullable: true }),
    leftRateInterval: t.field({ type: ConfidenceInterval, nullable: true, resolve: (b) => b.left_rate_interval }),
    pValue: t.exposeFloat('p_value', { nullable: true, description: 'Two-sided exact binomial test of leftRate = 0.5.' }),
  }),
});

const JudgePairRef = builder.objectRef<JudgePair>('HumanJudgePair').implement({
  fields: (t) => ({
    judgeA: t.exposeString('judge_a'),
    judgeB: t.exposeString('judge_b'),
    scenarios: t.exposeInt('scenarios', { description: 'Scenarios both judged.' }),
    observedAgreement: t.exposeFloat('observed_agreement'),
    cohenKappa: t.exposeFloat('cohen_kappa', { nullable: true }),
  }),
});

const AgreementRef = builder.objectRef<Agreement>('HumanAgreement').implement({
  description: "Agreement between judges on the scenarios at least two judged: Fleiss' kappa overall, Cohen's per pair.",
  fields: (t) => ({
    scenarios: t.exposeInt('scenarios'),
    judgements: t.exposeInt('judgements'),
    observedAgreement: t.exposeFloat('observed_agreement', { nullable: true }),
    expectedAgreement: t.exposeFloat('expected_agreement', { nullable: true }),
    fleissKappa: t.exposeFloat('fleiss_kappa', { nullable: true }),
    pairs: t.field({ type: [JudgePairRef], resolve: (a) => a.pairs }),
  }),
});

const StatisticsRef = builder.objectRef<HumanStatistics>('HumanEvaluationStatistics').implement({
  description: 'Every judgement counts once (one judge, one scenario); a scenario no one judged counts as one row without a verdict.',
  fields: (t) => ({
    scenarios: t.exposeInt('scenarios'),
    judgedScenarios: t.exposeInt('judged_scenarios'),
    judgements: t.exposeInt('judgements', { description: 'Judgements with a vote (A/B) or a score (single model).' }),
    judges: t.exposeStringList('judges'),
    positiveVotes: t.exposeInt('positive_votes', { description: 'A/B: "1" votes (both good).' }),
    flagVotes: t.exposeInt('flag_votes', { description: 'A/B: "0" votes (both bad).' }),
    variants: t.field({ type: [VariantStats], resolve: (s) => s.variants }),
    positionBias: t.field({ type: PositionBiasRef, nullable: true, resolve: (s) => s.position_bias }),
    agreement: t.field({ type: AgreementRef, resolve: (s) => s.agreement }),
  }),
});

const HumanEvaluationRef = builder.prismaNode('HumanEvaluation', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    appId: t.id({ resolve: (e) => globalId('App', e.appId) }),
    evaluationType: t.expose('evaluationType', { type: HumanEvaluationType }),
    variantIds: t.idList({ resolve: (e) => asArray<string>(e.variantIds).map((id) => globalId('Variant', id)) }),
    variantNames: t.stringList({ resolve: (e) => asArray<string>(e.variantNames) }),
    variantRevisionIds: t.idList({ resolve: (e) => asArray<string>(e.variantRevisionIds).map((id) => globalId('VariantRevision', id)) }),
    revisions: t.stringList({ resolve: (e) => asArray(e.revisions).map(String) }),
    testsetId: t.id({ resolve: (e) => globalId('Testset', e.testsetId) }),
    testsetName: t.exposeString('testsetName'),
    inputs: t.stringList({ description: 'The test set columns shown to judges.', resolve: (e) => asArray<string>(e.inputs) }),
    status: t.expose('status', { type: HumanEvaluationStatus }),
    statusError: t.string({
      nullable: true,
      description: 'Why generating the outputs failed (EVALUATION_FAILED).',
      resolve: (e) => (e.statusError as { message?: string } | null)?.message ?? null,
    }),
    progress: t.field({ type: HumanProgress, resolve: (e) => ({ total: e.total, done: e.done, errors: e.errors }) }),
    scenarios: t.relatedConnection('scenarios', { cursor: 'id', query: { orderBy: { position: 'asc' } } }, HumanScenarioConnection),
    statistics: t.field({
      type: StatisticsRef,
      resolve: async (e, _args, ctx) => statistics(await evaluationFacts(ctx, e.id)),
    }),
    results: t.field({
      type: 'JSON',
      description: 'What GET /human-evaluations/{id}/results answers, in its REST names: {votes_data} (A/B) or {results_data} (single model).',
      resolve: async (e, _args, ctx) => {
        const facts = await evaluationFacts(ctx, e.id);
        return facts.evaluationType === 'human_a_b_testing' ? { votes_data: votesData(facts) } : { results_data: resultsData(facts) };
      },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const HumanScenarioInputRef = builder.objectRef<ScenarioInput>('HumanScenarioInput').implement({
  fields: (t) => ({ inputName: t.exposeString('input_name'), inputValue: t.exposeString('input_value') }),
});

const HumanScenarioOutputRef = builder.objectRef<StoredOutput>('HumanScenarioOutput').implement({
  fields: (t) => ({
    variantId: t.id({ resolve: (o) => globalId('Variant', o.variant_id) }),
    variantOutput: t.exposeString('variant_output'),
    error: t.string({ nullable: true, description: 'Why the variant gave no output; null when it did.', resolve: (o) => o.error ?? null }),
    cost: t.float({ nullable: true, description: 'USD.', resolve: (o) => o.cost ?? null }),
    latency: t.float({ nullable: true, description: 'Seconds.', resolve: (o) => o.latency ?? null }),
    traceId: t.string({ nullable: true, description: 'The trace of the call.', resolve: (o) => o.trace_id ?? null }),
  }),
});

builder.prismaNode('HumanJudgement', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, scenario: { projectId: ctx.projectId } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    scenarioId: t.id({ resolve: (j) => globalId('HumanEvaluationScenario', j.scenarioId) }),
    judge: t.exposeString('judge'),
    vote: t.id({ nullable: true, description: VOTE, resolve: (j) => voteOut(j.vote) }),
    score: t.exposeInt('score', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const HumanScenario = builder.prismaNode('HumanEvaluationScenario', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    evaluationId: t.id({ resolve: (s) => globalId('HumanEvaluation', s.humanEvaluationId) }),
    position: t.exposeInt('position', { description: 'Index of the test case in its test set.' }),
    inputs: t.field({ type: [HumanScenarioInputRef], resolve: (s) => asArray<ScenarioInput>(s.inputs) }),
    outputs: t.field({
      type: [HumanScenarioOutputRef],
      description: 'In the order of the variants; empty until generated.',
      resolve: (s) => humanEvaluations.storedOutputs(s),
    }),
    displayOrder: t.idList({
      description: 'Variant ids left to right as shown to judges, drawn at random per scenario.',
      resolve: (s) => humanEvaluations.displayOrderOf(s).map((id) => globalId('Variant', id)),
    }),
    shownOutputs: t.field({
      type: [HumanScenarioOutputRef],
      description: 'The outputs left to right as a judging screen shows them (displayOrder).',
      resolve: (s) => {
        const outputs = humanEvaluations.storedOutputs(s);
        const order = humanEvaluations.displayOrderOf(s);
        return order.flatMap((id) => outputs.filter((output) => output.variant_id === id));
      },
    }),
    hasError: t.boolean({
      description: 'A variant call failed for this case (its output text records the error).',
      resolve: (s) => humanEvaluations.storedOutputs(s).some((output) => !!output.error),
    }),
    vote: t.id({ nullable: true, description: `The latest judgement’s vote: ${VOTE}`, resolve: (s) => voteOut(s.vote) }),
    score: t.exposeInt('score', { nullable: true, description: 'The latest judgement’s score.' }),
    correctAnswer: t.exposeString('correctAnswer', { nullable: true }),
    isPinned: t.exposeBoolean('isPinned'),
    note: t.exposeString('note'),
    judgements: t.relation('judgements', { query: { orderBy: { judge: 'asc' } } }),
  }),
});

const HumanScenarioConnection = builder.connectionObject(
  { type: HumanScenario, name: 'HumanEvaluationScenarioConnection', description: "A human evaluation's scenarios, a page at a time." },
  { description: 'A scenario and its cursor.' },
);

builder.queryFields((t) => ({
  humanEvaluation: t.prismaField({
    type: 'HumanEvaluation',
    nullable: true,
    args: { id: t.arg.globalID({ for: HumanEvaluationRef, required: true }) },
    resolve: (query, _root, args, ctx) => humanEvaluations.getHumanEvaluation(ctx, args.id.id, query),
  }),
  humanEvaluations: t.prismaConnection(
    {
      type: 'HumanEvaluation',
      cursor: 'id',
      args: { appId: t.arg.globalID({ for: App }) },
      resolve: (query, _root, args, ctx) => humanEvaluations.listHumanEvaluations(ctx, { app_id: args.appId?.id }, query),
    },
    HumanEvaluationConnection,
  ),
  nextHumanScenario: t.prismaField({
    type: 'HumanEvaluationScenario',
    nullable: true,
    description: 'The first scenario (test set order) with its outputs that this judge has not judged yet; null when none is left.',
    args: {
      evaluationId: t.arg.globalID({ for: HumanEvaluationRef, required: true }),
      judge: t.arg.string({ description: `Defaults to "${ANONYMOUS_JUDGE}".` }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { judge } = parseInput(judgeScenarioInput.pick({ judge: true }), { judge: args.judge ?? undefined }, 'query');
      const id = await humanEvaluations.nextUnjudgedScenarioId(ctx, args.evaluationId.id, judge ?? ANONYMOUS_JUDGE);
      return id ? ctx.db.humanEvaluationScenario.findUnique({ ...query, where: { id } }) : null;
    },
  }),
}));

const HumanEvaluationConnection = builder.connectionObject(
  { type: HumanEvaluationRef, name: 'HumanEvaluationConnection', description: 'Human evaluations, a page at a time.' },
  { description: 'A human evaluation and its cursor.' },
);

const CreateHumanEvaluationInput = builder.inputType('CreateHumanEvaluationInput', {
  fields: (t) => ({
    appId: t.globalID({ for: App, required: true }),
    variantIds: t.globalIDList({ for: Variant, required: true }),
    evaluationType: t.field({ type: HumanEvaluationType, required: true }),
    inputs: t.stringList({ required: true }),
    testsetId: t.globalID({ for: Testset, required: true }),
    status: t.field({ type: HumanEvaluationStatus }),
  }),
});

const HumanScenarioOutputInput = builder.inputType('HumanScenarioOutputInput', {
  fields: (t) => ({ variantId: t.globalID({ for: Variant, required: true }), variantOutput: t.string({ required: true }) }),
});

const JudgeHumanScenarioInput = builder.inputType('JudgeHumanScenarioInput', {
  fields: (t) => ({
    vote: t.string({ description: `A/B: ${VOTE}` }),
    score: t.int({ description: 'Single model: 0–100.' }),
    correctAnswer: t.string(),
    outputs: t.field({ type: [HumanScenarioOutputInput] }),
    isPinned: t.boolean(),
    note: t.string(),
    judge: t.string({ description: `Who judges; defaults to "${ANONYMOUS_JUDGE}".` }),
  }),
});

builder.mutationFields((t) => ({
  createHumanEvaluation: t.prismaField({
    type: 'HumanEvaluation',
    description: 'One scenario per test case; the outputs are generated in the background.',
    args: { input: t.arg({ type: CreateHumanEvaluationInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const created = await humanEvaluations.createHumanEvaluation(ctx, parseInput(createHumanEvaluationInput, restFields(args.input), 'body'));
      return humanEvaluations.getHumanEvaluation(ctx, created.id, query);
    },
  }),
  judgeHumanScenario: t.prismaField({
    type: 'HumanEvaluationScenario',
    description: "A judge's vote or score on a scenario, and the scenario's own fields (as the REST PUT).",
    args: {
      evaluationId: t.arg.globalID({ for: HumanEvaluationRef, required: true }),
      scenarioId: t.arg.globalID({ for: HumanScenario, required: true }),
      input: t.arg({ type: JudgeHumanScenarioInput, required: true }),
    },
    resolve: async (query, _root, args, ctx) => {
      const body = restFields(args.input, { nested: ['outputs'] });
      if (typeof body.vote === 'string') body.vote = voteIn(body.vote);
      const input = parseInput(judgeScenarioInput, body, 'body');
      const scenario = await humanEvaluations.judgeScenario(ctx, args.evaluationId.id, args.scenarioId.id, input);
      return ctx.db.humanEvaluationScenario.findUniqueOrThrow({ ...query, where: { id: scenario.id } });
    },
  }),
  updateHumanEvaluationStatus: t.prismaField({
    type: 'HumanEvaluation',
    args: { id: t.arg.globalID({ for: HumanEvaluationRef, required: true }), status: t.arg({ type: HumanEvaluationStatus, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const { status } = parseInput(updateHumanEvaluationInput, { status: args.status }, 'body');
      await humanEvaluations.updateHumanEvaluationStatus(ctx, args.id.id, status);
      return humanEvaluations.getHumanEvaluation(ctx, args.id.id, query);
    },
  }),
  deleteHumanEvaluations: t.idList({
    description: 'Deletes the human evaluations; answers their global ids.',
    args: { ids: t.arg.globalIDList({ for: HumanEvaluationRef, required: true }) },
    resolve: async (_root, args, ctx) => {
      const { evaluations_ids } = parseInput(deleteHumanEvaluationsInput, { evaluations_ids: databaseIds(args.ids) }, 'body');
      await humanEvaluations.deleteHumanEvaluations(ctx, evaluations_ids);
      return evaluations_ids.map((id) => globalId('HumanEvaluation', id));
    },
  }),
}));
