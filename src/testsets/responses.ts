// What the test set routes answer, described for the OpenAPI document (docs/api.md); a test
// checks real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';

export const testsetCreatedResponse = z.object({ id: z.string(), name: z.string(), created_at: timestamp() }).meta({ id: 'TestsetCreated' });

export const testsetSummaryResponse = z
  .object({ id: z.string(), name: z.string(), app_id: z.string().nullable(), created_at: timestamp(), updated_at: timestamp() })
  .meta({ id: 'TestsetSummary' });

export const testsetResponse = testsetSummaryResponse
  .extend({ csvdata: z.array(z.record(z.string(), z.unknown())).describe('The test cases: column name → value') })
  .meta({ id: 'Testset' });
