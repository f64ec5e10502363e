// GraphQL mutations of runs recorded from code (docs/experiments.md), the REST routes'
// `POST /evaluations/external`, `/evaluations/{id}/cases` and `/evaluations/{id}/finish`.
import { builder } from '../shared/graphql/builder.js';
import { App } from '../apps/graphql.js';
import { Testset } from '../testsets/graphql.js';
import { restFields } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { EvaluationRef } from './graphql.js';
import * as external from './external.js';
import { addExternalCasesInput, createExternalRunInput, finishExternalRunInput } from './inputs.js';

const CreateExternalRunInput = builder.inputType('CreateExternalRunInput', {
  description: 'A run made by your own code over a test set, to be recorded (REST `POST /evaluations/external`).',
  fields: (t) => ({
    testsetId: t.globalID({ for: Testset, required: true, description: 'Global id of the test set it ran over.' }),
    name: t.string({ required: true, description: "The run's name, unique per test set: the variant it is recorded as." }),
    description: t.string({ description: 'What the run tried.' }),
    metadata: t.field({ type: 'JSON', description: 'Any JSON object: model, commit, parameters.' }),
    appId: t.globalID({ for: App, description: "Global id of the app to record it in; absent, the test set's app, else the project's `experiments` app." }),
    correctAnswerColumn: t.string({ description: 'The ground-truth column of the test set; absent, `correct_answer`.' }),
  }),
});

const ReportedResultInput = builder.inputType('ReportedResultInput', {
  description: "An evaluator's result computed by your code: the case's result under the config of that name.",
  fields: (t) => ({
    name: t.string({ required: true, description: 'The evaluator config it is recorded under (created when the app has none of that name).' }),
    value: t.field({ type: 'JSON', required: true, description: 'A number, a boolean or a text.' }),
    dataType: t.string({ description: 'NUMERIC, BOOLEAN or CATEGORICAL; absent, from the value.' }),
    comment: t.string({ description: 'Why, kept on the scenario score.' }),
  }),
});

const ExternalCaseInput = builder.inputType('ExternalCaseInput', {
  description: 'One case of a run recorded from code (REST `POST /evaluations/{id}/cases`).',
  fields: (t) => ({
    testsetRowId: t.string({ description: "The id of a row of the run's test set; or give `inputs`." }),
    inputs: t.field({ type: 'JSON', description: 'The inputs of a case that is no row of the test set.' }),
    output: t.field({ type: 'JSON', description: "The task's answer; absent, read from the trace's span once stored." }),
    error: t.string({ description: 'Why the task failed: the output is an error.' }),
    traceId: t.string({ description: 'The trace the code produced.' }),
    spanId: t.string({ description: 'The span of that trace holding the output; absent, its root.' }),
    cost: t.float({ description: "USD; absent, the trace's cost." }),
    latency: t.float({ description: "Seconds; absent, the trace's latency." }),
    results: t.field({ type: [ReportedResultInput], description: "The code's evaluator results." }),
  }),
});

builder.mutationFields((t) => ({
  createExternalRun: t.field({
    type: EvaluationRef,
    nullable: false,
    description: 'Records a run made by your own code as an evaluation that Assay does not run; add its cases, then finish it.',
    args: { input: t.arg({ type: CreateExternalRunInput, required: true, description: 'The run.' }) },
    resolve: (_root, args, ctx) => external.createExternalRun(ctx, parseInput(createExternalRunInput, restFields(args.input), 'body')),
  }),
  addExternalRunCases: t.field({
    type: EvaluationRef,
    nullable: false,
    description: 'Adds up to 1,000 cases to an open run recorded from code; a case for a row recorded already replaces it. Answers the run.',
    args: {
      id: t.arg.globalID({ for: EvaluationRef, required: true, description: 'Global id of the run.' }),
      cases: t.arg({ type: [ExternalCaseInput], required: true, description: 'The cases, in order.' }),
    },
    resolve: async (_root, args, ctx) => {
      const cases = args.cases.map((item) => restFields(item, { nested: ['results'] }));
      await external.addExternalCases(ctx, args.id.id, parseInput(addExternalCasesInput, { cases }, 'body').cases);
      return external.getExternalRun(ctx, args.id.id);
    },
  }),
  finishExternalRun: t.field({
    type: EvaluationRef,
    nullable: false,
    description: 'Ends an open run recorded from code, computing its aggregates and totals; an ended one is a CONFLICT error.',
    args: {
      id: t.arg.globalID({ for: EvaluationRef, required: true, description: 'Global id of the run.' }),
      status: t.arg.string({ description: 'EVALUATION_FINISHED (default), EVALUATION_FAILED or EVALUATION_CANCELLED.' }),
      error: t.arg.string({ description: 'Why it failed, for EVALUATION_FAILED.' }),
    },
    resolve: (_root, args, ctx) =>
      external.finishExternalRun(ctx, args.id.id, parseInput(finishExternalRunInput, { status: args.status ?? undefined, error: args.error }, 'body')),
  }),
}));
