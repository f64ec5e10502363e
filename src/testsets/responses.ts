// What the test set routes answer, described for the OpenAPI document (docs/api.md), and the
// functions that shape rows into it; a test checks real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import type { TestsetRowData } from './inputs.js';
import type * as testsets from './operations.js';

export const testsetCreatedResponse = z.object({ id: z.string(), name: z.string(), created_at: timestamp() }).meta({ id: 'TestsetCreated' });

export const testsetSummaryResponse = z
  .object({ id: z.string(), name: z.string(), app_id: z.string().nullable(), created_at: timestamp(), updated_at: timestamp() })
  .meta({ id: 'TestsetSummary' });

export const testsetResponse = testsetSummaryResponse
  .extend({ csvdata: z.array(z.record(z.string(), z.unknown())).describe('The test cases: column name → value') })
  .meta({ id: 'Testset' });

type TestsetRecord = Awaited<ReturnType<typeof testsets.getTestset>>;

/** What a create answers (Agenta's TestSetSimpleResponse). */
export function createdJson(testset: TestsetRecord) {
  return { id: testset.id, name: testset.name, created_at: testset.createdAt };
}

export function summaryJson(testset: TestsetRecord) {
  return {
    id: testset.id,
    name: testset.name,
    app_id: testset.appId,
    created_at: testset.createdAt,
    updated_at: testset.updatedAt,
  };
}

export function testsetJson(testset: TestsetRecord, csvdata: TestsetRowData[]) {
  return { ...summaryJson(testset), csvdata };
}
