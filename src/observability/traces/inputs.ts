// The inputs of the trace reads: the query of `GET /observability/spans/{span_id}`.
import { z } from 'zod';

/** What a span read answers: the span with its subtree (`generation`), or the span alone. */
export const spanReadTypes = ['generation', 'span'] as const;
export type SpanReadType = (typeof spanReadTypes)[number];

export const spanReadQuery = z.object({
  type: z.enum(spanReadTypes).default('generation'),
  /** Narrows the look-up when a span id exists in several traces. */
  trace_id: z.string().min(1).optional(),
});
