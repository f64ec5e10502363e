// Langfuse's datasets and dataset items (datasets.ts) over HTTP: a dataset is a test set, an item
// a case whose columns are its input and expected output, each write a test set revision; upserts
// keep what they leave out, ARCHIVED takes the case out of the set and back, `version` reads an
// older revision; unhappy paths answer Langfuse's bodies, another project's names and ids are 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { startEndpoint, type FakeEndpoint } from '../../test/helpers/endpoints.js';
import * as fixtures from '../../test/helpers/evaluations.js';

const KEY = 'langfuse-datasets-key-0123456789abcdef';
let server: TestServer;
let otherKey: string;
let endpoint: FakeEndpoint;

const basic = (secret = KEY) => ({ authorization: `Basic ${Buffer.from(`pk-lf-public:${secret}`).toString('base64')}` });
const call = (method: string, path: string, body?: unknown, key = KEY) => server.request(method, `/api/public${path}`, body, basic(key));
const assay = (method: string, path: string, body?: unknown) => server.request(method, path, body, basic());

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY, ASSAY_OUTBOUND_ALLOW: '127.0.0.1' });
  otherKey = (await server.request('POST', '/projects', { name: 'other' }, basic())).body.api_key.key;
});

afterAll(async () => {
  await endpoint?.close();
  await server.close();
});

describe('Langfuse datasets over test sets', () => {
  it('creates a dataset as an empty test set, upserts it by name, lists and reads it', async () => {
    const created = await call('POST', '/v2/datasets', { name: 'qa', description: 'questions', metadata: { team: 'support' } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: 'qa', description: 'questions', metadata: { team: 'support' }, inputSchema: null, expectedOutputSchema: null });
    const testset = await assay('GET', `/testsets/${created.body.id}`);
    expect(testset.body).toMatchObject({ name: 'qa', csvdata: [] });

    // The same name again is the same test set; a changed description is a `described` revision.
    const again = await call('POST', '/v2/datasets', { name: 'qa', description: 'support questions' });
    expect(again.body).toMatchObject({ id: created.body.id, description: 'support questions', metadata: { team: 'support' } });
    expect((await call('POST', '/v2/datasets', { name: 'qa' })).body.id).toBe(created.body.id);
    const revisions = await assay('GET', `/testsets/${created.body.id}/revisions`);
    expect(revisions.body.map((revision: { change: string }) => revision.change)).toEqual(['created', 'described']);

    await call('POST', '/v2/datasets', { name: 'qa-2' });
    const page = await call('GET', '/v2/datasets?page=2&limit=1');
    expect(page.body).toMatchObject({ data: [{ name: 'qa-2' }], meta: { page: 2, limit: 1, totalItems: 2, totalPages: 2 } });
    expect((await call('GET', '/v2/datasets/qa')).body).toEqual(again.body);
    expect((await call('GET', '/datasets/qa')).body).toMatchObject({ id: created.body.id, items: [], runs: [] });
  });

  it('maps input and expectedOutput to columns, keeps what an upsert leaves out, and makes a revision per write', async () => {
    const dataset = (await call('POST', '/v2/datasets', { name: 'columns' })).body;
    const first = await call('POST', '/dataset-items', {
      datasetName: 'columns',
      id: 'item-1',
      input: { question: 'What is 2+2?', topic: 'math' },
      expectedOutput: '4',
      metadata: { from: 'production' },
      sourceTraceId: 'trace-1',
      sourceObservationId: 'span-1',
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: 'item-1',
      status: 'ACTIVE',
      input: { question: 'What is 2+2?', topic: 'math' },
      expectedOutput: '4',
      metadata: { from: 'production' },
      sourceTraceId: 'trace-1',
      sourceObservationId: 'span-1',
      datasetId: dataset.id,
      datasetName: 'columns',
      mediaReferences: [],
    });
    const scalar = await call('POST', '/dataset-items', { datasetName: 'columns', input: 'just text' });
    expect(scalar.body).toMatchObject({ input: 'just text', expectedOutput: null, metadata: null, sourceTraceId: null });
    let rows = (await assay('GET', `/testsets/${dataset.id}`)).body.csvdata;
    expect(rows).toEqual([{ question: 'What is 2+2?', topic: 'math', correct_answer: '4' }, { input: 'just text' }]);

    // An upsert by id changes what it names and keeps the rest.
    const edited = await call('POST', '/dataset-items', { datasetName: 'columns', id: 'item-1', expectedOutput: 'four' });
    expect(edited.body).toMatchObject({ input: { question: 'What is 2+2?', topic: 'math' }, expectedOutput: 'four', metadata: { from: 'production' } });
    expect(edited.body.sourceObservationId).toBe('span-1');
    expect(edited.body.createdAt).toBe(first.body.createdAt);
    rows = (await assay('GET', `/testsets/${dataset.id}`)).body.csvdata;
    expect(rows[0]).toEqual({ question: 'What is 2+2?', topic: 'math', correct_answer: 'four' });
    const revisions = (await assay('GET', `/testsets/${dataset.id}/revisions`)).body;
    expect(revisions.map((revision: { change: string }) => revision.change)).toEqual(['created', 'rows_added', 'rows_added', 'rows_edited']);
    // The earlier revision still holds the earlier version of the case.
    expect((await assay('GET', `/testsets/${dataset.id}/revisions/2`)).body.rows[0].data.correct_answer).toBe('4');
    // Langfuse's `version`: the dataset as it was at a time, here before the edit.
    const before = await call('GET', `/dataset-items?datasetName=columns&version=${encodeURIComponent(revisions[2].created_at)}`);
    expect(before.body.data.map((item: { expectedOutput: unknown }) => item.expectedOutput)).toEqual(['4', null]);
    const ancient = await call('GET', '/dataset-items?datasetName=columns&version=2000-01-01T00:00:00Z');
    expect(ancient.body).toMatchObject({ data: [], meta: { totalItems: 0 } });
  });

  it('archives an item out of the test set and restores it; deletes it; filters by source', async () => {
    await call('POST', '/v2/datasets', { name: 'archive' });
    await call('POST', '/dataset-items', { datasetName: 'archive', id: 'a-1', input: { q: 'one' }, sourceTraceId: 'trace-a' });
    await call('POST', '/dataset-items', { datasetName: 'archive', id: 'a-2', input: { q: 'two' }, sourceTraceId: 'trace-b', sourceObservationId: 'span-b' });
    const testset = (await call('GET', '/v2/datasets/archive')).body;

    const archived = await call('POST', '/dataset-items', { datasetName: 'archive', id: 'a-1', status: 'ARCHIVED' });
    expect(archived.body).toMatchObject({ id: 'a-1', status: 'ARCHIVED', input: { q: 'one' } });
    expect((await assay('GET', `/testsets/${testset.id}`)).body.csvdata).toEqual([{ q: 'two' }]);
    // Archived items are still listed and read, as Langfuse lists them.
    const listed = await call('GET', '/dataset-items?datasetName=archive');
    expect(listed.body.data.map((item: { id: string; status: string }) => [item.id, item.status])).toEqual([
      ['a-1', 'ARCHIVED'],
      ['a-2', 'ACTIVE'],
    ]);
    expect((await call('GET', '/dataset-items/a-1')).body.status).toBe('ARCHIVED');
    // Editing an archived item keeps it archived; ACTIVE restores it at the end of the set.
    expect((await call('POST', '/dataset-items', { datasetName: 'archive', id: 'a-1', input: { q: 'uno' } })).body.status).toBe('ARCHIVED');
    const restored = await call('POST', '/dataset-items', { datasetName: 'archive', id: 'a-1', status: 'ACTIVE' });
    expect(restored.body).toMatchObject({ status: 'ACTIVE', input: { q: 'uno' }, sourceTraceId: 'trace-a' });
    expect((await assay('GET', `/testsets/${testset.id}`)).body.csvdata).toEqual([{ q: 'two' }, { q: 'uno' }]);

    expect((await call('GET', '/dataset-items?sourceTraceId=trace-b')).body.data.map((item: { id: string }) => item.id)).toEqual(['a-2']);
    expect((await call('GET', '/dataset-items?sourceObservationId=span-b')).body.meta.totalItems).toBe(1);

    // Deleting the last items leaves an empty set (Langfuse's datasets may be empty); the item is then a 404.
    for (const id of ['a-1', 'a-2']) {
      expect(await call('DELETE', `/dataset-items/${id}`)).toMatchObject({ status: 200, body: { message: 'Dataset item successfully deleted' } });
      expect((await call('GET', `/dataset-items/${id}`)).status).toBe(404);
    }
    expect((await assay('GET', `/testsets/${testset.id}`)).body.csvdata).toEqual([]);
    expect((await call('DELETE', '/dataset-items/a-1')).status).toBe(404);
    // A deleted item's id may be used again, as a new case.
    expect((await call('POST', '/dataset-items', { datasetName: 'archive', id: 'a-1', input: 'back' })).body).toMatchObject({
      status: 'ACTIVE',
      input: 'back',
    });
  });

  it('is run by an evaluation: its active items, expectedOutput the ground truth, metadata and archived items left out', async () => {
    await call('POST', '/v2/datasets', { name: 'capitals' });
    await call('POST', '/dataset-items', { datasetName: 'capitals', input: { country: 'France' }, expectedOutput: 'Paris', metadata: { hidden: true } });
    await call('POST', '/dataset-items', { datasetName: 'capitals', input: { country: 'Peru' }, expectedOutput: 'Quito' });
    await call('POST', '/dataset-items', { datasetName: 'capitals', id: 'gone', input: { country: 'Atlantis' }, status: 'ARCHIVED' });
    const dataset = (await call('GET', '/v2/datasets/capitals')).body;
    const capitals: Record<string, string> = { France: 'Paris', Peru: 'Lima' };
    endpoint = await startEndpoint((request) => ({ body: { data: capitals[(request.body as { inputs: { country: string } }).inputs.country] } }));
    const client: fixtures.Requester = { request: (method, path, body, headers = {}) => server.request(method, path, body, { ...basic(), ...headers }) };
    const app = await fixtures.createApp(client);
    const variant = await fixtures.createEndpointVariant(client, app, endpoint.url);
    const exact = await fixtures.createConfig(client, app, 'auto_exact_match');
    const { id } = await fixtures.startEvaluation(client, {
      app_id: app,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: dataset.id,
    });
    await fixtures.waitForStatus(client, id);
    const scenarios = await fixtures.getScenarios(client, id);
    expect(scenarios.map((scenario) => [scenario.inputs, scenario.correct_answers, scenario.results[0].result.value])).toEqual([
      [[{ name: 'country', type: 'text', value: 'France' }], [{ key: 'correct_answer', value: 'Paris' }], true],
      [[{ name: 'country', type: 'text', value: 'Peru' }], [{ key: 'correct_answer', value: 'Quito' }], false],
    ]);
  });

  it('refuses bad bodies naming the field, in Langfuse’s 400', async () => {
    await call('POST', '/v2/datasets', { name: 'refusals' });
    const noName = await call('POST', '/v2/datasets', { description: 'x' });
    expect(noName.status).toBe(400);
    expect(noName.body).toMatchObject({ message: 'Invalid request data', error: [{ path: ['name'] }] });
    const schema = await call('POST', '/v2/datasets', { name: 'schema', inputSchema: { type: 'object' } });
    expect(schema.body.error).toMatchObject([{ path: ['inputSchema'] }]);

    const cases: [unknown, (string | number)[]][] = [
      [{ input: 'x' }, ['datasetName']],
      [{ datasetName: 'refusals', sourceObservationId: 'span-1' }, ['sourceObservationId']],
      [{ datasetName: 'refusals', input: { correct_answer: 'x' } }, ['input', 'correct_answer']],
      [{ datasetName: 'refusals', status: 'DELETED' }, ['status']],
      [{ datasetName: 'refusals', id: 'x'.repeat(256) }, ['id']],
    ];
    for (const [body, path] of cases) {
      const answer = await call('POST', '/dataset-items', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error[0].path).toEqual(path);
    }
    const badVersion = await call('GET', '/dataset-items?version=2024-01-01T00:00:00Z');
    expect(badVersion.body).toMatchObject({ message: 'Invalid request data', error: [{ path: ['version'] }] });
    expect((await call('GET', '/dataset-items?datasetName=refusals&version=yesterday')).status).toBe(400);
    expect((await call('GET', '/dataset-items?limit=0')).status).toBe(400);
  });

  it('answers 404 for unknown datasets and items, and 409 for an item id of another dataset', async () => {
    expect(await call('GET', '/v2/datasets/nope')).toMatchObject({ status: 404, body: { error: 'LangfuseNotFoundError' } });
    expect((await call('GET', '/datasets/nope')).status).toBe(404);
    expect((await call('GET', '/dataset-items?datasetName=nope')).status).toBe(404);
    expect((await call('POST', '/dataset-items', { datasetName: 'nope', input: 'x' })).status).toBe(404);
    expect((await call('GET', '/dataset-items/nope')).status).toBe(404);
    expect((await call('DELETE', '/dataset-items/nope')).status).toBe(404);

    await call('POST', '/v2/datasets', { name: 'one' });
    await call('POST', '/v2/datasets', { name: 'two' });
    await call('POST', '/dataset-items', { datasetName: 'one', id: 'shared-id', input: 'x' });
    const conflict = await call('POST', '/dataset-items', { datasetName: 'two', id: 'shared-id', input: 'y' });
    expect(conflict).toMatchObject({ status: 409, body: { error: 'LangfuseConflictError' } });
    expect((await call('GET', '/dataset-items/shared-id')).body).toMatchObject({ datasetName: 'one', input: 'x' });
  });

  it('keeps projects apart: another project’s datasets and items are 404 and never changed', async () => {
    await call('POST', '/v2/datasets', { name: 'private' });
    await call('POST', '/dataset-items', { datasetName: 'private', id: 'private-item', input: 'secret' });
    expect((await call('GET', '/v2/datasets/private', undefined, otherKey)).status).toBe(404);
    expect((await call('GET', '/datasets/private', undefined, otherKey)).status).toBe(404);
    expect((await call('GET', '/dataset-items/private-item', undefined, otherKey)).status).toBe(404);
    expect((await call('DELETE', '/dataset-items/private-item', undefined, otherKey)).status).toBe(404);
    expect((await call('POST', '/dataset-items', { datasetName: 'private', id: 'private-item', input: 'mine' }, otherKey)).status).toBe(404);
    expect((await call('GET', '/dataset-items', undefined, otherKey)).body.data).toEqual([]);
    expect((await call('GET', '/v2/datasets', undefined, otherKey)).body.data).toEqual([]);
    // The other project may name its own dataset and item alike: they are its own.
    await call('POST', '/v2/datasets', { name: 'private' }, otherKey);
    const theirs = await call('POST', '/dataset-items', { datasetName: 'private', id: 'private-item', input: 'theirs' }, otherKey);
    expect(theirs.body).toMatchObject({ id: 'private-item', input: 'theirs' });
    expect((await call('GET', '/dataset-items/private-item')).body.input).toBe('secret');
  });
});
