// The inputs of human evaluations (docs/human-evaluations.md), named as the REST bodies are. REST
// and GraphQL both validate with these, so a fault is reported at the same `loc` through either.
import { z } from 'zod';
import { EvaluationStatus } from '../generated/prisma/enums.js';
import { boolean, int, name } from '../shared/validation.js';

const id = () => z.string().min(1);

export const humanEvaluationTypes = ['human_a_b_testing', 'single_model_test'] as const;
export type HumanEvaluationTypeName = (typeof humanEvaluationTypes)[number];

/** How many variants each kind compares. */
export const VARIANTS_PER_TYPE: Record<HumanEvaluationTypeName, number> = { human_a_b_testing: 2, single_model_test: 1 };

/** The status values of docs/human-evaluations.md (the bare string). */
export const evaluationStatuses = Object.values(EvaluationStatus);

/** The judge a judgement is attributed to when the request names none. */
export const ANONYMOUS_JUDGE = 'anonymous';

export const createHumanEvaluationInput = z
  .object({
    app_id: id(),
    /** Two for an A/B test, one for a single model test (checked below). */
    variant_ids: z.array(id()),
    evaluation_type: z.enum(humanEvaluationTypes),
    /** The test set columns shown to judges and sent to the variants. */
    inputs: z.array(name()).min(1),
    testset_id: id(),
    /**
     * INITIALIZED (the default) or STARTED: the service runs the variants to fill the outputs.
     * Any other status: it does not, and the client fills `outputs` itself (as Agenta's UI did).
     */
    status: z.enum(evaluationStatuses).optional(),
  })
  .superRefine(
    (input, ctx) => {
      const wanted = VARIANTS_PER_TYPE[input.evaluation_type];
      if (input.variant_ids.length !== wanted) {
        ctx.addIssue({
          code: 'custom',
          path: ['variant_ids'],
          message: `${input.evaluation_type} takes exactly ${wanted === 1 ? 'one variant' : `${wanted} variants`}, got ${input.variant_ids.length}`,
        });
      } else if (new Set(input.variant_ids).size !== input.variant_ids.length) {
        ctx.addIssue({ code: 'custom', path: ['variant_ids', 1], message: 'An A/B test compares two different variants' });
      }
      const seen = new Set<string>();
      input.inputs.forEach((column, index) => {
        if (seen.has(column)) ctx.addIssue({ code: 'custom', path: ['inputs', index], message: `The column ${column} is listed twice` });
        seen.add(column);
      });
    },
    // Checked even when other fields failed, so every fault is listed.
    {
      when: (payload) => {
        const value = payload.value as { evaluation_type?: unknown; variant_ids?: unknown; inputs?: unknown } | null;
        return (
          !!value &&
          humanEvaluationTypes.includes(value.evaluation_type as never) &&
          Array.isArray(value.variant_ids) &&
          Array.isArray(value.inputs) &&
          value.inputs.every((column) => typeof column === 'string')
        );
      },
    },
  );
export type CreateHumanEvaluationInput = z.output<typeof createHumanEvaluationInput>;

/** A score as an integer, or a string holding one (Agenta's clients send both). */
const score = int({ min: 0, max: 100 });

export const scenarioOutputInput = z.object({ variant_id: id(), variant_output: z.string() });

export const judgeScenarioInput = z.object({
  /** A/B: a variant id of the evaluation, "1" (both good) or "0" (both bad); null withdraws it. */
  vote: z.string().nullish(),
  /** Single model: 0–100; null withdraws it. */
  score: score.nullish(),
  correct_answer: z.string().nullish(),
  outputs: z.array(scenarioOutputInput).optional(),
  is_pinned: boolean().optional(),
  note: z.string().max(10_000).optional(),
  /** Who judges; there are no user accounts yet. */
  judge: name().max(200).optional(),
});
export type JudgeScenarioInput = z.output<typeof judgeScenarioInput>;

export const evaluationTypeParam = z.object({ evaluation_type: z.enum(humanEvaluationTypes) });

export const updateHumanEvaluationInput = z.object({ status: z.enum(evaluationStatuses) });

export const deleteHumanEvaluationsInput = z.object({ evaluations_ids: z.array(id()).min(1) });

export const listHumanEvaluationsQuery = z.object({ app_id: z.string().min(1).optional() });
