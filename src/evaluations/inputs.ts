// The inputs of automatic evaluations (docs/contract.md 4.3, docs/evaluations.md), named as the
// REST body is.
import { z } from 'zod';
import { providerKeysInput } from '../providers/access.js';
import { int, jsonObject, name } from '../shared/validation.js';

const id = () => z.string().min(1);

export const rateLimitInput = z.object({
  batch_size: int({ min: 1, max: 1000 }),
  max_retries: int({ min: 0, max: 20 }),
  /** Seconds between retries of one call. */
  retry_delay: int({ min: 0, max: 3600 }),
  /** Seconds between two batches. */
  delay_between_batches: int({ min: 0, max: 3600 }),
});

export const createEvaluationInput = z.object({
  app_id: id(),
  variant_ids: z.array(id()).min(1),
  evaluators_configs: z.array(id()).min(1),
  testset_id: id(),
  rate_limit: rateLimitInput,
  lm_providers_keys: providerKeysInput.nullish(),
  correct_answer_column: name().nullish(),
});

export const deleteEvaluationsInput = z.object({ evaluations_ids: z.array(id()).min(1) });

export const listEvaluationsQuery = z.object({ app_id: z.string().min(1).optional() });

export const comparisonQuery = z.object({
  evaluations_ids: z
    .string()
    .min(1)
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    ),
});

export type CreateEvaluationInput = z.output<typeof createEvaluationInput>;
export type RateLimit = z.output<typeof rateLimitInput>;

// Runs recorded from the caller's code (docs/experiments.md).

export const createExternalRunInput = z.object({
  testset_id: id(),
  /** The run's name: the variant it is recorded as. */
  name: name().max(255),
  description: z.string().max(10_000).nullish(),
  metadata: jsonObject().nullish(),
  /** The app it is recorded in; absent: the test set's app, else the project's `experiments` app. */
  app_id: id().nullish(),
  correct_answer_column: name().nullish(),
});

export const reportedResultInput = z.object({
  /** The evaluator's name: the config its results are recorded under (created when the app has none of that name). */
  name: name().max(255),
  value: z.union([z.number().refine(Number.isFinite, 'A finite number'), z.boolean(), z.string().max(10_000)]),
  /** Absent: BOOLEAN for a boolean, NUMERIC for a number, CATEGORICAL for a text. */
  data_type: z.enum(['NUMERIC', 'BOOLEAN', 'CATEGORICAL']).nullish(),
  comment: z.string().max(10_000).nullish(),
});

export const externalCaseInput = z
  .object({
    /** A row of the run's test set: the case's inputs, ground truth and position. */
    testset_row_id: id().nullish(),
    /** Or the case's inputs themselves, for a case that is no row of the test set. */
    inputs: jsonObject().nullish(),
    /** The task's answer; absent, it is read from the trace's span (`span_id`, else its root) once the trace is stored. */
    output: z.unknown().optional(),
    /** Set when the task failed: the output is an error Result with this message. */
    error: z.string().max(10_000).nullish(),
    trace_id: z.string().min(1).max(255).nullish(),
    span_id: z.string().min(1).max(255).nullish(),
    /** USD; absent, the trace's cost. */
    cost: z.number().min(0).refine(Number.isFinite, 'A finite number').nullish(),
    /** Seconds; absent, the trace's latency. */
    latency: z.number().min(0).refine(Number.isFinite, 'A finite number').nullish(),
    results: z.array(reportedResultInput).max(100).default([]),
  })
  .superRefine((input, ctx) => {
    const given = [input.testset_row_id, input.inputs].filter((value) => value !== undefined && value !== null).length;
    if (given !== 1) {
      ctx.addIssue({ code: 'custom', path: ['testset_row_id'], message: 'Exactly one of testset_row_id and inputs is required' });
    }
    if (input.output === undefined && !input.error && !input.trace_id) {
      ctx.addIssue({ code: 'custom', path: ['output'], message: 'Field required when the case has neither an error nor a trace_id to read it from' });
    }
    input.results.forEach((result, index) => {
      const type = dataTypeOf(result);
      const fits =
        type === 'BOOLEAN'
          ? typeof result.value === 'boolean' || result.value === 0 || result.value === 1
          : type === 'NUMERIC'
            ? typeof result.value === 'number'
            : true;
      if (!fits)
        ctx.addIssue({
          code: 'custom',
          path: ['results', index, 'value'],
          message: `A ${type} result needs a ${type === 'BOOLEAN' ? 'boolean (or 0/1)' : 'number'}`,
        });
    });
  });

export const addExternalCasesInput = z.object({ cases: z.array(externalCaseInput).min(1).max(1000) });

export const finishExternalRunInput = z.object({
  /** Absent: finished (with errors when a case had one). */
  status: z.enum(['EVALUATION_FINISHED', 'EVALUATION_FAILED', 'EVALUATION_CANCELLED']).default('EVALUATION_FINISHED'),
  /** Why it failed, for EVALUATION_FAILED. */
  error: z.string().max(10_000).nullish(),
});

export type ReportedResult = z.output<typeof reportedResultInput>;
export type ExternalCaseInput = z.output<typeof externalCaseInput>;
export type CreateExternalRunInput = z.output<typeof createExternalRunInput>;
export type FinishExternalRunInput = z.output<typeof finishExternalRunInput>;

/** A reported result's data type, as given or from its value. */
export function dataTypeOf(result: Pick<ReportedResult, 'value' | 'data_type'>): 'NUMERIC' | 'BOOLEAN' | 'CATEGORICAL' {
  if (result.data_type) return result.data_type;
  return typeof result.value === 'boolean' ? 'BOOLEAN' : typeof result.value === 'number' ? 'NUMERIC' : 'CATEGORICAL';
}
