// What a deletion answers, described for the OpenAPI document (docs/api.md).
import { z } from 'zod';

export const deletedSpansResponse = z
  .object({ spans: z.int().describe('Spans deleted'), traces: z.int().describe('Traces deleted, having no span left') })
  .meta({ id: 'DeletedSpans' });
