// REST routes of test sets (SPEC §3, Agenta's paths and shapes): validate, call the operation,
// shape the answer.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '../shared/errors.js';
import { described } from '../shared/http/openapi.js';
import { parseInput } from '../shared/validation.js';
import {
  createTestsetInput,
  deleteTestsetsInput,
  listTestsetsQuery,
  type TestsetRowData,
  updateTestsetInput,
  uploadTestsetInput,
} from './inputs.js';
import * as testsets from './operations.js';
import { testsetCreatedResponse, testsetResponse, testsetSummaryResponse } from './responses.js';

type TestsetRecord = Awaited<ReturnType<typeof testsets.getTestset>>;

/** What a create answers (Agenta's TestSetSimpleResponse). */
function createdJson(testset: TestsetRecord) {
  return { id: testset.id, name: testset.name, created_at: testset.createdAt };
}

function summaryJson(testset: TestsetRecord) {
  return {
    id: testset.id,
    name: testset.name,
    app_id: testset.appId,
    created_at: testset.createdAt,
    updated_at: testset.updatedAt,
  };
}

function testsetJson(testset: TestsetRecord, csvdata: TestsetRowData[]) {
  return { ...summaryJson(testset), csvdata };
}

/**
 * The fields of a multipart request, whatever their order: the `file` part read whole (its size is
 * capped by the multipart limits, 413 beyond), text fields as sent, blank ones left out as a
 * browser form sends untouched inputs. A request that is not multipart has no fields at all.
 */
async function multipartFields(req: FastifyRequest): Promise<Record<string, unknown>> {
  const fields: Record<string, unknown> = {};
  if (!req.isMultipart()) return fields;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        // Every file part is read to the end, or the parts after it would never arrive.
        const content = await part.toBuffer();
        // busboy leaves `filename` undefined when the part names none (`filename=""`).
        if (part.fieldname === 'file') fields.file = { filename: part.filename ?? '', content };
      } else if (!(typeof part.value === 'string' && part.value.trim() === '')) {
        fields[part.fieldname] = part.value;
      }
    }
  } catch (error) {
    // The multipart errors that carry a status (413 limits, …) keep it; busboy's own errors
    // (no boundary, a part cut short) are a malformed body, not a fault of the server.
    if ((error as { statusCode?: number }).statusCode) throw error;
    throw ValidationError.at(['body'], `Invalid multipart/form-data body: ${(error as Error).message}`, 'value_error');
  }
  return fields;
}

type TestsetParams = { Params: { testset_id: string } };

const tag = 'testsets';
const capitals = [{ country: 'France', correct_answer: 'Paris' }];

export function testsetRoutes(app: FastifyInstance): void {
  app.post(
    '/testsets',
    described({
      tag,
      summary: 'Create a test set',
      body: createTestsetInput,
      response: testsetCreatedResponse,
      errors: [404],
      examples: { capitals: { name: 'capitals', csvdata: capitals } },
    }),
    async (req) =>
    createdJson(await testsets.createTestset(req.ctx, parseInput(createTestsetInput, req.body, 'body'))),
  );
  app.post(
    '/testsets/upload',
    described({
      tag,
      summary: 'Create a test set from a CSV or JSON file',
      description: 'A CSV\'s header row names the columns; a JSON file is an array of objects.',
      body: uploadTestsetInput,
      multipart: true,
      response: testsetCreatedResponse,
      errors: [404],
      examples: { csv: { file: 'country,correct_answer\nFrance,Paris\n', upload_type: 'CSV', testset_name: 'capitals' } },
    }),
    async (req) => {
    const input = parseInput(uploadTestsetInput, await multipartFields(req), 'body');
    return createdJson(await testsets.uploadTestset(req.ctx, input));
  });
  app.get('/testsets', described({ tag, summary: 'List test sets', query: listTestsetsQuery, response: z.array(testsetSummaryResponse) }), async (req) =>
    (await testsets.listTestsets(req.ctx, parseInput(listTestsetsQuery, req.query, 'query'))).map(summaryJson),
  );
  app.delete('/testsets', described({ tag, summary: 'Delete test sets (none if one is unknown)', body: deleteTestsetsInput, noContent: true, errors: [404] }), async (req, reply) => {
    await testsets.deleteTestsets(req.ctx, parseInput(deleteTestsetsInput, req.body, 'body').testset_ids);
    return reply.code(204).send();
  });
  app.get<TestsetParams>('/testsets/:testset_id', described({ tag, summary: 'Read a test set with its cases', response: testsetResponse, errors: [404] }), async (req) => {
    const testset = await testsets.getTestsetWithRows(req.ctx, req.params.testset_id);
    return testsetJson(testset, testset.rows.map((row) => row.data as TestsetRowData));
  });
  app.put<TestsetParams>(
    '/testsets/:testset_id',
    described({ tag, summary: 'Replace a test set\'s name and cases', body: updateTestsetInput, response: testsetResponse, errors: [404] }),
    async (req) => {
    const input = parseInput(updateTestsetInput, req.body, 'body');
    // The stored rows are exactly the validated input, so they are not read back.
    return testsetJson(await testsets.updateTestset(req.ctx, req.params.testset_id, input), input.csvdata);
  });
  app.delete<TestsetParams>('/testsets/:testset_id', described({ tag, summary: 'Delete a test set', noContent: true, errors: [404] }), async (req, reply) => {
    await testsets.deleteTestset(req.ctx, req.params.testset_id);
    return reply.code(204).send();
  });
}
