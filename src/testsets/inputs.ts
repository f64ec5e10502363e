// The inputs of the testsets domain, named as Agenta's REST bodies are (docs/resources.md). REST
// and GraphQL both validate with these, so a fault is reported at the same `loc` through either.
import { z } from 'zod';
import { jsonObject, name } from '../shared/validation.js';
import type { UploadedFile } from '../shared/http/multipart.js';

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
