// The inputs of the testsets domain, named as Agenta's REST bodies are (docs/resources.md). REST
// and GraphQL both validate with these, so a fault is reported at the same `loc` through either.
import { z } from 'zod';
import { jsonObject, name } from '../shared/validation.js';
import type { UploadedFile } from '../shared/http/multipart.js';
import { searchQuery } from '../observability/search/inputs.js';
import { parseJsonPath } from '../shared/json-path.js';

/** One test case: column name → any JSON value (a CSV gives strings). */
export const testsetRow = jsonObject();

export const TESTSET_NAME_MAX = 255;

/** A test set has at least one case: an evaluation over none would have nothing to show. */
const csvdata = z.array(testsetRow).min(1);

export const updateTestsetInput = z.object({
  name: name().max(TESTSET_NAME_MAX),
  csvdata,
});

export const createTestsetInput = updateTestsetInput.extend({
  app_id: z.string().nullish(),
});

export const deleteTestsetsInput = z.object({
  testset_ids: z.array(z.string()).min(1),
});

export const listTestsetsQuery = z.object({
  app_id: z.string().min(1).optional(),
});

export const uploadTypes = ['CSV', 'JSON'] as const;

export type { UploadedFile };

function isUploadedFile(value: unknown): value is UploadedFile {
  const file = value as UploadedFile | null;
  return typeof file === 'object' && file !== null && typeof file.filename === 'string' && Buffer.isBuffer(file.content);
}

/** FastAPI's `UploadFile = File(...)`: required, and a plain text field does not count. */
const uploadedFile = z
  .unknown()
  .transform((value, ctx) => {
    if (value === undefined) {
      ctx.addIssue({ code: 'custom', message: 'Field required', params: { type: 'missing' } });
      return z.NEVER;
    }
    if (!isUploadedFile(value)) {
      ctx.addIssue({ code: 'custom', message: 'Expected a file upload, received a text field', params: { type: 'value_error' } });
      return z.NEVER;
    }
    return value;
  })
  .meta({ description: 'The CSV (header row first) or JSON (an array of objects) file', override: { type: 'string', format: 'binary' } });

/** The fields of `POST /testsets/upload`; form fields arrive as strings, blank ones count as absent. */
export const uploadTestsetInput = z.object({
  file: uploadedFile,
  upload_type: z.enum(uploadTypes).default('CSV'),
  testset_name: name().max(TESTSET_NAME_MAX).optional(),
  app_id: z.string().optional(),
});

export type CreateTestsetInput = z.output<typeof createTestsetInput>;
export type UpdateTestsetInput = z.output<typeof updateTestsetInput>;
export type UploadTestsetInput = z.output<typeof uploadTestsetInput>;
export type TestsetRowData = z.output<typeof testsetRow>;

export const addRowsInput = z.object({ rows: csvdata });

export const editRowsInput = z.object({
  rows: z.array(z.object({ row_id: z.string().min(1), data: testsetRow })).min(1),
});

export const deleteRowsInput = z.object({ row_ids: z.array(z.string().min(1)).min(1) });

/** `PATCH /testsets/{id}/columns`: renames (old → new) and removals, at least one of them. */
export const changeColumnsInput = z
  .object({
    rename: z.record(z.string(), name()).optional().describe('Old column name → new one'),
    remove: z.array(z.string()).optional().describe('Columns to remove from every row'),
  })
  .superRefine((input, ctx) => {
    if (Object.keys(input.rename ?? {}).length === 0 && (input.remove ?? []).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['rename'], message: 'Rename or remove at least one column', params: { type: 'value_error' } });
    }
  });

export type ChangeColumnsInput = z.output<typeof changeColumnsInput>;

/** The parts of a span a mapping reads from: `$.input…`, `$.output…`, `$.metadata…`, `$.attributes…`. */
export const spanParts = ['input', 'output', 'metadata', 'attributes'] as const;

/** A mapping's JSONPath: in the subset shared/json-path.ts reads, and into one of the span's parts. */
const spanPath = z.string().transform((path, ctx) => {
  const segments = parseJsonPath(path);
  if (typeof segments === 'string') {
    ctx.addIssue({ code: 'custom', message: segments, params: { type: 'value_error' } });
    return z.NEVER;
  }
  if (!(spanParts as readonly unknown[]).includes(segments[0])) {
    ctx.addIssue({ code: 'custom', message: `A JSONPath starts with ${spanParts.map((part) => `$.${part}`).join(', ')}`, params: { type: 'value_error' } });
    return z.NEVER;
  }
  return { path, segments };
});

export const FROM_SPANS_MAX = 1000;

/** Column → JSONPath into a span; an annotation queue's export takes the same (docs/annotation-queues.md#export-to-a-test-set). */
export const spanMapping = z
  .record(name(), spanPath)
  .refine((mapping) => Object.keys(mapping).length > 0, { message: 'Map at least one column', params: { type: 'value_error' } })
  .describe('Column → JSONPath into the span ($.input…, $.output…, $.metadata…, $.attributes…); the expected answer is a column like any other');
export type SpanMapping = z.output<typeof spanMapping>;

/** Search's query fields (observability/search/inputs.ts) as a JSON object: its values are written as a query string would be. */
const traceFilter = z
  .record(z.string(), z.unknown())
  .transform((fields) =>
    Object.fromEntries(
      Object.entries(fields).map(([key, value]) => [key, Array.isArray(value) ? value.join(',') : value instanceof Object ? value : String(value)]),
    ),
  )
  .pipe(searchQuery.omit({ sort_by: true, sort_direction: true, limit: true, cursor: true, trace_id: true }).strict());

const selected = z.array(z.string().min(1)).min(1).max(FROM_SPANS_MAX);

/** `POST /testsets/{id}/rows/from-spans`: exactly one of trace_ids, spans, filter. */
export const rowsFromSpansInput = z
  .object({
    trace_ids: selected.optional().describe('Traces whose root span becomes a row each, at most 1000'),
    spans: z
      .array(z.object({ trace_id: z.string().min(1), span_id: z.string().min(1) }))
      .min(1)
      .max(FROM_SPANS_MAX)
      .optional()
      .describe('Spans that become a row each, at most 1000'),
    filter: traceFilter.optional().describe("The traces matching a search filter (GET /observability/traces' fields), newest first, up to `limit`"),
    limit: z.int().min(1).max(FROM_SPANS_MAX).default(100).describe('At most this many of the filter’s matches, 1 to 1000'),
    mapping: spanMapping,
    preview: z.boolean().default(false).describe('Answer the rows without writing them'),
  })
  .superRefine((input, ctx) => {
    const given = (['trace_ids', 'spans', 'filter'] as const).filter((field) => input[field] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: given.length === 0 ? ['trace_ids'] : [given[1]],
        message: 'Give exactly one of trace_ids, spans, filter',
        params: { type: 'value_error' },
      });
    }
  });

export type RowsFromSpansInput = z.output<typeof rowsFromSpansInput>;
