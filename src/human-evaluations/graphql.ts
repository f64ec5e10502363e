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
import { resultsData, statistics, votesData } from './statistics.js';
import { StatisticsRef } from './statistics-graphql.js';

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

const HumanEvaluationType = builder.enumType('HumanEvaluationType', {
  description: 'What judges do in a human evaluation.',
  values: upperCaseValues(humanEvaluationTypes, {
    human_a_b_testing: 'Two variants side by side; judges vote for the better output.',
    single_model_test: 'One variant; judges score each output from 0 to 100.',
  }),
});

const HumanEvaluationStatus = builder.enumType('HumanEvaluationStatus', {
  description: "Where a human evaluation's output generation stands (docs/human-evaluations.md#output-generation-and-status).",
  values: upperCaseValues(evaluationStatuses, {
    EVALUATION_INITIALIZED: 'Outputs still to generate; setting it again resumes generation.',
    EVALUATION_STARTED: 'Generation under way.',
    EVALUATION_FINISHED: 'Every output generated.',
    EVALUATION_FINISHED_WITH_ERRORS: 'Every scenario done, but some variant call failed for good (its scenario has hasError).',
    EVALUATION_FAILED: 'Generation stopped: a pinned revision is gone.',
    EVALUATION_AGGREGATION_FAILED: 'Never set by the service here; a client setting it stops generation, as any final status does.',
    EVALUATION_CANCELLED: 'Set by a client to stop generation; the outputs stored so far stay.',
  }),
});

const HumanProgress = builder.objectRef<{ total: number; done: number; errors: number }>('HumanEvaluationProgress').implement({
  description: 'How many scenarios have their outputs.',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Scenarios (test cases).' }),
    done: t.exposeInt('done', { description: 'Scenarios whose outputs are there.' }),
    errors: t.exposeInt('errors', { description: 'Scenarios where a variant call failed.' }),
  }),
});

const HumanEvaluationRef = builder.prismaNode('HumanEvaluation', {
  description: 'People judging variant outputs over a test set: an A/B test of two variants or a single model test (REST `/human-evaluations`).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    appId: t.id({ description: 'Global id of its app.', resolve: (e) => globalId('App', e.appId) }),
    evaluationType: t.expose('evaluationType', { type: HumanEvaluationType, description: 'An A/B test or a single model test.' }),
    variantIds: t.idList({
      description: 'Global ids of the variants judged: two for an A/B test, one for a single model test.',
      resolve: (e) => asArray<string>(e.variantIds).map((id) => globalId('Variant', id)),
    }),
    variantNames: t.stringList({ description: 'Their names at creation, in the same order.', resolve: (e) => asArray<string>(e.variantNames) }),
    variantRevisionIds: t.idList({
      description: 'Global ids of the revisions pinned at creation (REST `variants_revision_ids`).',
      resolve: (e) => asArray<string>(e.variantRevisionIds).map((id) => globalId('VariantRevision', id)),
    }),
    revisions: t.stringList({ description: "Those revisions' numbers as text.", resolve: (e) => asArray(e.revisions).map(String) }),
    testsetId: t.id({ description: 'Global id of the test set its scenarios come from.', resolve: (e) => globalId('Testset', e.testsetId) }),
    testsetName: t.exposeString('testsetName', { description: "The test set's name at creation." }),
    inputs: t.stringList({ description: 'The test set columns shown to judges.', resolve: (e) => asArray<string>(e.inputs) }),
    status: t.expose('status', {
      type: HumanEvaluationStatus,
      description: 'Where output generation stands; a client may set it (updateHumanEvaluationStatus).',
    }),
    statusError: t.string({
      nullable: true,
      description: 'Why generating the outputs failed (EVALUATION_FAILED).',
      resolve: (e) => (e.statusError as { message?: string } | null)?.message ?? null,
    }),
    progress: t.field({
      type: HumanProgress,
      description: 'How many scenarios have their outputs.',
      resolve: (e) => ({ total: e.total, done: e.done, errors: e.errors }),
    }),
    scenarios: t.relatedConnection(
      'scenarios',
      {
        cursor: 'id',
        description: 'Its scenarios in test set order (REST `GET /human-evaluations/{id}/evaluation_scenarios`).',
        query: { orderBy: { position: 'asc' } },
      },
      HumanScenarioConnection,
    ),
    statistics: t.field({
      type: StatisticsRef,
      description: 'Win rates or scores, position bias and judge agreement, with 95% intervals, over every judgement.',
      resolve: async (e, _args, ctx) => statistics(await humanEvaluations.evaluationFacts(ctx, e.id)),
    }),
    results: t.field({
      type: 'JSON',
      description: 'What GET /human-evaluations/{id}/results answers, in its REST names: {votes_data} (A/B) or {results_data} (single model).',
      resolve: async (e, _args, ctx) => {
        const facts = await humanEvaluations.evaluationFacts(ctx, e.id);
        return facts.evaluationType === 'human_a_b_testing' ? { votes_data: votesData(facts) } : { results_data: resultsData(facts) };
      },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});

const HumanScenarioInputRef = builder.objectRef<ScenarioInput>('HumanScenarioInput').implement({
  description: 'One test set column shown to judges.',
  fields: (t) => ({
    inputName: t.exposeString('input_name', { description: "The column's name." }),
    inputValue: t.exposeString('input_value', { description: "The test case's value in it, as text." }),
  }),
});

const HumanScenarioOutputRef = builder.objectRef<StoredOutput>('HumanScenarioOutput').implement({
  description: "One variant's output for a scenario.",
  fields: (t) => ({
    variantId: t.id({ description: 'Global id of the variant.', resolve: (o) => globalId('Variant', o.variant_id) }),
    variantOutput: t.exposeString('variant_output', { description: 'The output as text; `Error: <message>` when the call failed.' }),
    error: t.string({ nullable: true, description: 'Why the variant gave no output; null when it did.', resolve: (o) => o.error ?? null }),
    cost: t.float({ nullable: true, description: 'USD.', resolve: (o) => o.cost ?? null }),
    latency: t.float({ nullable: true, description: 'Seconds.', resolve: (o) => o.latency ?? null }),
    traceId: t.string({ nullable: true, description: 'The trace of the call.', resolve: (o) => o.trace_id ?? null }),
  }),
});

builder.prismaNode('HumanJudgement', {
  description: "One judge's verdict on one scenario; judging again replaces it.",
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, scenario: { projectId: ctx.projectId } }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    scenarioId: t.id({ description: 'Global id of its scenario.', resolve: (j) => globalId('HumanEvaluationScenario', j.scenarioId) }),
    judge: t.exposeString('judge', { description: `Who judged ("${ANONYMOUS_JUDGE}" when unnamed).` }),
    vote: t.id({ nullable: true, description: `The A/B vote, null if none: ${VOTE}`, resolve: (j) => voteOut(j.vote) }),
    score: t.exposeInt('score', { nullable: true, description: 'The single model score, 0–100; null if none.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was first given.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it last changed.' }),
  }),
});

const HumanScenario = builder.prismaNode('HumanEvaluationScenario', {
  description: 'One test case of a human evaluation: what judges see, the outputs and the judgements (docs/contract.md 2.7).',
  id: { field: 'id' },
  nullable: true,
  findUnique: (id, ctx) => ({ id, projectId: ctx.projectId }),
  fields: (t) => ({
    databaseId: t.exposeString('id', { description: 'The id REST uses.' }),
    evaluationId: t.id({ description: 'Global id of its human evaluation.', resolve: (s) => globalId('HumanEvaluation', s.humanEvaluationId) }),
    position: t.exposeInt('position', { description: 'Index of the test case in its test set.' }),
    inputs: t.field({
      type: [HumanScenarioInputRef],
      description: 'The columns chosen at creation, in that order.',
      resolve: (s) => asArray<ScenarioInput>(s.inputs),
    }),
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
    correctAnswer: t.exposeString('correctAnswer', {
      nullable: true,
      description: "The test case's `correct_answer` column, or what a client last set; null when none.",
    }),
    isPinned: t.exposeBoolean('isPinned', { description: 'Whether a client pinned the scenario; false at first.' }),
    note: t.exposeString('note', { description: "A client's note on the scenario; empty at first." }),
    judgements: t.relation('judgements', { description: "Every judge's judgement, in judge name order.", query: { orderBy: { judge: 'asc' } } }),
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
    description: 'The human evaluation with this global id; null, with a NOT_FOUND error, when the project has none.',
    args: { id: t.arg.globalID({ for: HumanEvaluationRef, required: true, description: 'Global id of the human evaluation.' }) },
    resolve: (query, _root, args, ctx) => humanEvaluations.getHumanEvaluation(ctx, args.id.id, query),
  }),
  humanEvaluations: t.prismaConnection(
    {
      type: 'HumanEvaluation',
      cursor: 'id',
      description: "The project's human evaluations in creation order (REST `GET /human-evaluations`).",
      args: { appId: t.arg.globalID({ for: App, description: 'Only the human evaluations of this app.' }) },
      resolve: (query, _root, args, ctx) => humanEvaluations.listHumanEvaluations(ctx, { app_id: args.appId?.id }, query),
    },
    HumanEvaluationConnection,
  ),
  nextHumanScenario: t.prismaField({
    type: 'HumanEvaluationScenario',
    nullable: true,
    description: 'The first scenario (test set order) with its outputs that this judge has not judged yet; null when none is left.',
    args: {
      evaluationId: t.arg.globalID({ for: HumanEvaluationRef, required: true, description: 'Global id of the human evaluation.' }),
      judge: t.arg.string({ description: `Who judges; defaults to "${ANONYMOUS_JUDGE}".` }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { judge } = parseInput(judgeScenarioInput.pick({ judge: true }), { judge: args.judge ?? undefined }, 'query');
      const id = await humanEvaluations.nextUnjudgedScenarioId(ctx, args.evaluationId.id, judge ?? ANONYMOUS_JUDGE);
      return id ? humanEvaluations.getHumanScenario(ctx, args.evaluationId.id, id, query) : null;
    },
  }),
}));

const HumanEvaluationConnection = builder.connectionObject(
  { type: HumanEvaluationRef, name: 'HumanEvaluationConnection', description: 'Human evaluations, a page at a time.' },
  { description: 'A human evaluation and its cursor.' },
);

const CreateHumanEvaluationInput = builder.inputType('CreateHumanEvaluationInput', {
  description: 'A new human evaluation, one scenario per test case (REST `POST /human-evaluations`).',
  fields: (t) => ({
    appId: t.globalID({ for: App, required: true, description: 'Global id of the app.' }),
    variantIds: t.globalIDList({
      for: Variant,
      required: true,
      description: 'Global ids of variants of that app: two different ones for HUMAN_A_B_TESTING, one for SINGLE_MODEL_TEST.',
    }),
    evaluationType: t.field({ type: HumanEvaluationType, required: true, description: 'An A/B test or a single model test.' }),
    inputs: t.stringList({ required: true, description: 'Test set columns shown to judges and sent to the variants, at least one.' }),
    testsetId: t.globalID({ for: Testset, required: true, description: 'Global id of the test set.' }),
    status: t.field({
      type: HumanEvaluationStatus,
      description: 'EVALUATION_INITIALIZED (the default) or EVALUATION_STARTED has the service generate the outputs; any other leaves them to the client.',
    }),
  }),
});

const HumanScenarioOutputInput = builder.inputType('HumanScenarioOutputInput', {
  description: "A variant's output, given by the client.",
  fields: (t) => ({
    variantId: t.globalID({ for: Variant, required: true, description: 'Global id of a variant of the evaluation.' }),
    variantOutput: t.string({ required: true, description: 'The output text.' }),
  }),
});

const JudgeHumanScenarioInput = builder.inputType('JudgeHumanScenarioInput', {
  description: 'A judgement and changes to the scenario; absent fields stay as they are.',
  fields: (t) => ({
    vote: t.string({ description: `A/B: ${VOTE}` }),
    score: t.int({ description: 'Single model: 0–100; null withdraws it.' }),
    correctAnswer: t.string({ description: 'Replaces the expected answer.' }),
    outputs: t.field({
      type: [HumanScenarioOutputInput],
      description: 'Outputs to store, each replacing that of its variant; the other variants keep theirs.',
    }),
    isPinned: t.boolean({ description: 'Pins or unpins the scenario.' }),
    note: t.string({ description: 'Replaces the note; at most 10,000 characters.' }),
    judge: t.string({ description: `Who judges; defaults to "${ANONYMOUS_JUDGE}".` }),
  }),
});

builder.mutationFields((t) => ({
  createHumanEvaluation: t.prismaField({
    type: 'HumanEvaluation',
    description: 'One scenario per test case; the outputs are generated in the background.',
    args: { input: t.arg({ type: CreateHumanEvaluationInput, required: true, description: 'What to judge, and how.' }) },
    resolve: async (query, _root, args, ctx) => {
      const created = await humanEvaluations.createHumanEvaluation(ctx, parseInput(createHumanEvaluationInput, restFields(args.input), 'body'));
      return humanEvaluations.getHumanEvaluation(ctx, created.id, query);
    },
  }),
  judgeHumanScenario: t.prismaField({
    type: 'HumanEvaluationScenario',
    description: "A judge's vote or score on a scenario, and the scenario's own fields (as the REST PUT).",
    args: {
      evaluationId: t.arg.globalID({ for: HumanEvaluationRef, required: true, description: 'Global id of the human evaluation.' }),
      scenarioId: t.arg.globalID({ for: HumanScenario, required: true, description: 'Global id of one of its scenarios.' }),
      input: t.arg({ type: JudgeHumanScenarioInput, required: true, description: 'The judgement and the changes.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const body = restFields(args.input, { nested: ['outputs'] });
      if (typeof body.vote === 'string') body.vote = voteIn(body.vote);
      const input = parseInput(judgeScenarioInput, body, 'body');
      const scenario = await humanEvaluations.judgeScenario(ctx, args.evaluationId.id, args.scenarioId.id, input);
      return humanEvaluations.getHumanScenario(ctx, args.evaluationId.id, scenario.id, query);
    },
  }),
  updateHumanEvaluationStatus: t.prismaField({
    type: 'HumanEvaluation',
    description:
      'Sets the status: EVALUATION_INITIALIZED or EVALUATION_STARTED resumes output generation, any other stops it (REST `PUT /human-evaluations/{id}`).',
    args: {
      id: t.arg.globalID({ for: HumanEvaluationRef, required: true, description: 'Global id of the human evaluation.' }),
      status: t.arg({ type: HumanEvaluationStatus, required: true, description: 'The new status.' }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { status } = parseInput(updateHumanEvaluationInput, { status: args.status }, 'body');
      await humanEvaluations.updateHumanEvaluationStatus(ctx, args.id.id, status);
      return humanEvaluations.getHumanEvaluation(ctx, args.id.id, query);
    },
  }),
  deleteHumanEvaluations: t.idList({
    description: 'Deletes the human evaluations with their scenarios and judgements, or none if one is unknown; answers their global ids.',
    args: { ids: t.arg.globalIDList({ for: HumanEvaluationRef, required: true, description: 'Global ids of the human evaluations, at least one.' }) },
    resolve: async (_root, args, ctx) => {
      const { evaluations_ids } = parseInput(deleteHumanEvaluationsInput, { evaluations_ids: databaseIds(args.ids) }, 'body');
      await humanEvaluations.deleteHumanEvaluations(ctx, evaluations_ids);
      return evaluations_ids.map((id) => globalId('HumanEvaluation', id));
    },
  }),
}));
