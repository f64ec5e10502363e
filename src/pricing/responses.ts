// What the price routes answer, described for the OpenAPI document (docs/api.md).
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';

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
