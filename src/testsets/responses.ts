// What the test set routes answer, described for the OpenAPI document (docs/api.md), and the
// functions that shape rows into it; a test checks real answers against these.
import { z } from 'zod';
import { timestamp } from '../shared/http/openapi.js';
import { asArray } from '../shared/json.js';
import type { TestsetRowData } from './inputs.js';
import type * as testsets from './operations.js';
import type * as rowReads from './row-reads.js';

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

export const testsetRevisionSummaryResponse = z
  .object({
    testset_id: z.string(),
    number: z.int().describe('1 for the set as created, one more for each change'),
    change: z
      .string()
      .describe('created, uploaded, replaced, rows_added, rows_edited, rows_deleted, rows_from_spans, columns_changed, rows_archived or described'),
    name: z.string(),
    columns: z.array(z.string()),
    row_count: z.int(),
    created_at: timestamp(),
  })
  .meta({ id: 'TestsetRevisionSummary' });

export const testsetRowResponse = z
  .object({
    id: z.string().nullable().describe('This version of the case (an edit makes a new one); null in a preview'),
    position: z.int().nullable().describe('Place in the test set; null in a preview'),
    data: z.record(z.string(), z.unknown()),
    source_trace_id: z.string().nullable().describe('The production trace it was made from, if any'),
    source_span_id: z.string().nullable().describe('The production span it was made from, if any'),
  })
  .meta({ id: 'TestsetRow' });

export const testsetRevisionResponse = testsetRevisionSummaryResponse
  .extend({ rows: z.array(testsetRowResponse).describe('The cases of this revision in position order') })
  .meta({ id: 'TestsetRevision' });

export const rowsFromSpansResponse = z
  .object({
    matched: z.int().describe('Spans chosen: the ids given, or every trace the filter matches'),
    capped: z.boolean().describe('Whether the filter matched more traces than `limit` took'),
    revision: z.int().nullable().describe('The revision the rows were written as; null for a preview'),
    rows: z.array(testsetRowResponse),
  })
  .meta({ id: 'TestsetRowsFromSpans' });

export function revisionSummaryJson(revision: rowReads.TestsetRevisionRecord) {
  return {
    testset_id: revision.testsetId,
    number: revision.number,
    change: revision.change,
    name: revision.name,
    columns: asArray<string>(revision.columns),
    row_count: revision.rowCount,
    created_at: revision.createdAt,
  };
}

export function rowJson(row: { id: string | null; position: number | null; data: unknown; sourceTraceId: string | null; sourceSpanId: string | null }) {
  return { id: row.id, position: row.position, data: row.data as TestsetRowData, source_trace_id: row.sourceTraceId, source_span_id: row.sourceSpanId };
}
