// The inputs of automatic evaluations (docs/contract.md 4.3, docs/evaluations.md), named as the
// REST body is.
import { z } from 'zod';
import { providerKeysInput } from '../providers/access.js';
import { int, name } from '../shared/validation.js';

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
