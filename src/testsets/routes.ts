// REST routes of test sets (docs/resources.md#test-sets, Agenta's paths and shapes): validate, call
// the operation, shape the answer (responses.ts).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { restRoutes } from '../shared/http/route.js';
import { createTestsetInput, deleteTestsetsInput, listTestsetsQuery, type TestsetRowData, updateTestsetInput, uploadTestsetInput } from './inputs.js';
import * as testsets from './operations.js';
import { createdJson, summaryJson, testsetCreatedResponse, testsetJson, testsetResponse, testsetSummaryResponse } from './responses.js';

const tag = 'testsets';
const capitals = [{ country: 'France', correct_answer: 'Paris' }];

export function testsetRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/testsets',
    {
      tag,
      summary: 'Create a test set',
      body: createTestsetInput,
      response: testsetCreatedResponse,
      errors: [404],
      examples: { capitals: { name: 'capitals', csvdata: capitals } },
    },
    async (req, { body }) => createdJson(await testsets.createTestset(req.ctx, body)),
  );
  // `multipart`: the body is the form's fields (shared/http/multipart.ts), validated like JSON.
  rest.post(
    '/testsets/upload',
    {
      tag,
      summary: 'Create a test set from a CSV or JSON file',
      description: "A CSV's header row names the columns; a JSON file is an array of objects.",
      body: uploadTestsetInput,
      multipart: true,
      response: testsetCreatedResponse,
      errors: [404],
      examples: { csv: { file: 'country,correct_answer\nFrance,Paris\n', upload_type: 'CSV', testset_name: 'capitals' } },
    },
    async (req, { body }) => createdJson(await testsets.uploadTestset(req.ctx, body)),
  );
  rest.get('/testsets', { tag, summary: 'List test sets', query: listTestsetsQuery, response: z.array(testsetSummaryResponse) }, async (req, { query }) =>
    (await testsets.listTestsets(req.ctx, query)).map(summaryJson),
  );
  rest.delete(
    '/testsets',
    { tag, summary: 'Delete test sets (none if one is unknown)', body: deleteTestsetsInput, noContent: true, errors: [404] },
    (req, { body }) => testsets.deleteTestsets(req.ctx, body.testset_ids),
  );
  rest.get('/testsets/:testset_id', { tag, summary: 'Read a test set with its cases', response: testsetResponse, errors: [404] }, async (req, { params }) => {
    const testset = await testsets.getTestsetWithRows(req.ctx, params.testset_id);
    return testsetJson(
      testset,
      testset.rows.map((row) => row.data as TestsetRowData),
    );
  });
  rest.put(
    '/testsets/:testset_id',
    { tag, summary: "Replace a test set's name and cases", body: updateTestsetInput, response: testsetResponse, errors: [404] },
    async (req, { params, body }) =>
      // The stored rows are exactly the validated input, so they are not read back.
      testsetJson(await testsets.updateTestset(req.ctx, params.testset_id, body), body.csvdata),
  );
  rest.delete('/testsets/:testset_id', { tag, summary: 'Delete a test set', noContent: true, errors: [404] }, (req, { params }) =>
    testsets.deleteTestset(req.ctx, params.testset_id),
  );
}
