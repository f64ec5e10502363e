// REST routes of test sets (docs/resources.md#test-sets, Agenta's paths and shapes): validate, call
// the operation, shape the answer (responses.ts).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { restRoutes } from '../shared/http/route.js';
import { NotFoundError } from '../shared/errors.js';
import {
  addRowsInput,
  changeColumnsInput,
  createTestsetInput,
  deleteRowsInput,
  deleteTestsetsInput,
  editRowsInput,
  listTestsetsQuery,
  rowsFromSpansInput,
  type TestsetRowData,
  updateTestsetInput,
  uploadTestsetInput,
} from './inputs.js';
import { rowsFromSpans } from './from-spans.js';
import * as testsets from './operations.js';
import * as rowReads from './row-reads.js';
import {
  createdJson,
  revisionSummaryJson,
  rowJson,
  rowsFromSpansResponse,
  summaryJson,
  testsetCreatedResponse,
  testsetJson,
  testsetResponse,
  testsetRevisionResponse,
  testsetRevisionSummaryResponse,
  testsetSummaryResponse,
} from './responses.js';

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
  revisionRoutes(app);
}

/** The answer of a change: the revision it made. */
async function madeRevision(req: { ctx: Parameters<typeof rowReads.getRevision>[0] }, testset: { id: string; revision: number }) {
  return revisionSummaryJson(await rowReads.getRevision(req.ctx, testset.id, testset.revision));
}

/** A revision number in a path; anything else names no revision (404, as a malformed id does). */
function revisionNumber(testsetId: string, text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new NotFoundError('TestsetRevision', `${testsetId}/${text}`);
  return Number(text);
}

// Row changes and revisions (docs/resources.md#test-set-revisions); each change answers the revision it made.
function revisionRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.post(
    '/testsets/:testset_id/rows',
    { tag, summary: 'Append rows (a new revision)', body: addRowsInput, response: testsetRevisionSummaryResponse, errors: [404] },
    async (req, { params, body }) =>
      madeRevision(
        req,
        (
          await testsets.addRows(
            req.ctx,
            params.testset_id,
            body.rows.map((data) => ({ data })),
          )
        ).testset,
      ),
  );
  rest.patch(
    '/testsets/:testset_id/rows',
    { tag, summary: 'Edit rows by id (a new revision)', body: editRowsInput, response: testsetRevisionSummaryResponse, errors: [404] },
    async (req, { params, body }) => madeRevision(req, await testsets.editRows(req.ctx, params.testset_id, body.rows)),
  );
  rest.delete(
    '/testsets/:testset_id/rows',
    { tag, summary: 'Delete rows by id (a new revision)', body: deleteRowsInput, response: testsetRevisionSummaryResponse, errors: [404] },
    async (req, { params, body }) => madeRevision(req, await testsets.deleteRows(req.ctx, params.testset_id, body.row_ids)),
  );
  rest.patch(
    '/testsets/:testset_id/columns',
    {
      tag,
      summary: 'Rename or remove columns in every row (a new revision)',
      body: changeColumnsInput,
      response: testsetRevisionSummaryResponse,
      errors: [404],
    },
    async (req, { params, body }) => madeRevision(req, await testsets.changeColumns(req.ctx, params.testset_id, body)),
  );
  rest.post(
    '/testsets/:testset_id/rows/from-spans',
    {
      tag,
      summary: 'Rows from production traces or spans, mapped by JSONPath (a preview writes nothing)',
      body: rowsFromSpansInput,
      response: rowsFromSpansResponse,
      errors: [404],
      examples: {
        traces: { trace_ids: ['4bf92f3577b34da6a3ce929d0e0e4736'], mapping: { question: '$.input.question', correct_answer: '$.output' }, preview: true },
      },
    },
    async (req, { params, body }) => {
      const made = await rowsFromSpans(req.ctx, params.testset_id, body);
      return { matched: made.matched, capped: made.capped, revision: made.revision, rows: made.rows.map(rowJson) };
    },
  );
  rest.get(
    '/testsets/:testset_id/revisions',
    { tag, summary: "A test set's revisions, oldest first", response: z.array(testsetRevisionSummaryResponse), errors: [404] },
    async (req, { params }) => (await rowReads.listRevisions(req.ctx, params.testset_id)).map(revisionSummaryJson),
  );
  rest.get(
    '/testsets/:testset_id/revisions/:number',
    { tag, summary: 'One revision with its rows', response: testsetRevisionResponse, errors: [404] },
    async (req, { params }) => {
      const revision = await rowReads.getRevision(req.ctx, params.testset_id, revisionNumber(params.testset_id, params.number));
      const rows = await rowReads.readRevisionRows(req.ctx, params.testset_id, revision.number);
      return { ...revisionSummaryJson(revision), rows: rows.map(rowJson) };
    },
  );
}
