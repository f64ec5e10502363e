// What the legacy JSON ingest answers, described for the OpenAPI document (docs/api.md).
import { z } from 'zod';

export const legacyIngestResponse = z.object({ trace_id: z.string(), spans: z.int().describe('Spans stored by this request') });
