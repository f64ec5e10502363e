// What the price routes answer, described for the OpenAPI document (docs/api.md), and the shaping
// of a price entry into it (GraphQL's ModelPrice reads the same JSON).
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import type { PriceEntry } from './prices.js';

export const priceResponse = z
  .object({
    id: z.string().nullable().describe('null for a built-in price'),
    model: z.string(),
    input: z.number().describe('USD per 1M input tokens'),
    output: z.number().describe('USD per 1M output tokens'),
    cached_input: z.number().nullable(),
    effective_from: timestamp(),
    source: z.enum(['builtin', 'user']),
  })
  .meta({ id: 'Price' });

/** The JSON of a price, REST and GraphQL alike. */
export interface PriceJson {
  id: string | null;
  model: string;
  input: number;
  output: number;
  cached_input: number | null;
  effective_from: string;
  source: 'builtin' | 'user';
}

export function priceJson(entry: PriceEntry): PriceJson {
  return {
    id: entry.id ?? null,
    model: entry.model,
    input: entry.input,
    output: entry.output,
    cached_input: entry.cachedInput ?? null,
    effective_from: entry.effectiveFrom.toISOString(),
    source: entry.source,
  };
}
