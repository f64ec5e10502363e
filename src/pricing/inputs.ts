// Inputs of the price endpoints, validated the same way for REST and GraphQL.
import { z } from 'zod';
import { isoDate, number } from '../shared/validation.js';

const usd = () => number({ min: 0, max: 1_000_000 });

export const priceInput = z.object({
  model: z.string().trim().min(1).max(200),
  /** USD per 1M input tokens. */
  input: usd(),
  /** USD per 1M output tokens. */
  output: usd(),
  /** USD per 1M cached input tokens; the input price when absent. */
  cached_input: usd().nullish(),
  /** When the price starts to apply; absent = always (the epoch). */
  effective_from: isoDate().nullish(),
});

export const priceListQuery = z.object({
  model: z.string().min(1).optional(),
  source: z.enum(['builtin', 'user']).optional(),
});

export const priceResolveQuery = z.object({
  model: z.string().min(1),
  at: isoDate().optional(),
});
