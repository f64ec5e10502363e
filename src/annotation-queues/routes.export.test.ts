// A queue's export to a test set (docs/annotation-queues.md#export-to-a-test-set), over REST and GraphQL: the
// done items' spans mapped as rows from spans are, each score config a column (two reviewers'
// values combined), the TEXT correction as the expected answer, rows keeping their source; a
// preview writes nothing; bad input is a 422 naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { legacySpan } from '../../test/helpers/spans.js';
import { globalId } from '../shared/graphql/ids.js';

const INIT_KEY = 'assay_queue_export_admin_key_0123456789';
const server = useTestServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY });

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const as = (key: string, method: string, path: string, body?: unknown) => server.request(method, path, body, bearer(key));

let alice: string;
let bob: string;
let viewer: string;
const config: Record<'correct' | 'quality', string> = { correct: '', quality: '' };
let queueId: string;
const mapping = { question: '$.input.question', answer: '$.output.answer' };

async function issueKey(name: string, scopes: string[]): Promise<string> {
  const [project] = (await as(INIT_KEY, 'GET', '/projects')).body;
  const created = await as(INIT_KEY, 'POST', `/projects/${project.id}/api-keys`, { name, scopes });
  expect(created.status, created.text).toBe(200);
  return created.body.key;
}

/** The reviewer takes their next item and completes it with these values, by config name, and a correction. */
async function review(
  key: string,
  values: Partial<Record<keyof typeof config, { value?: number; string_value?: string }>>,
  correction?: string,
): Promise<string> {
  const next = await as(key, 'POST', `/annotation-queues/${queueId}/next`);
  expect(next.status, next.text).toBe(200);
  const scores = Object.entries(values).map(([name, value]) => ({ config_id: config[name as keyof typeof config], ...value }));
  const done = await as(key, 'POST', `/annotation-queues/${queueId}/items/${next.body.item.id}/complete`, { scores, correction });
  expect(done.status, done.text).toBe(200);
  return next.body.item.target_id;
}

async function createTestset(rows: Record<string, unknown>[]): Promise<{ id: string }> {
  const created = await as(INIT_KEY, 'POST', '/testsets', { name: `typed ${rows.length} ${Math.random()}`, csvdata: rows });
  expect(created.status, created.text).toBe(200);
  return created.body;
}

const exportQueue = (body: unknown, key = INIT_KEY) => as(key, 'POST', `/annotation-queues/${queueId}/export`, body);

// Three traces e0…e2 in a queue with two reviewers per item: e0 and e1 reviewed by both, e2 by one.
beforeAll(async () => {
  alice = await issueKey('alice', ['read', 'write']);
  bob = await issueKey('bob', ['read', 'write']);
  viewer = await issueKey('viewer', ['read']);
  const configs = {
    correct: { name: 'correct', data_type: 'BOOLEAN' },
    quality: { name: 'quality', data_type: 'NUMERIC', min_value: 0, max_value: 5 },
  };
  for (const [key, body] of Object.entries(configs)) config[key as keyof typeof config] = (await as(INIT_KEY, 'POST', '/score-configs', body)).body.id;
  for (let i = 0; i < 3; i++) {
    await server.request(
      'POST',
      '/observability/trace',
      { trace: `e${i}`, spans: [legacySpan(`e${i}-root`, null, i, i + 1, { inputs: { question: `q${i}` }, outputs: { answer: `a${i}` } })] },
      bearer(INIT_KEY),
    );
  }
  const queue = await as(INIT_KEY, 'POST', '/annotation-queues', {
    name: 'to export',
    target_type: 'trace',
    score_config_ids: [config.correct, config.quality],
    annotators_per_item: 2,
  });
  expect(queue.status, queue.text).toBe(200);
  queueId = queue.body.id;
  const added = await as(INIT_KEY, 'POST', `/annotation-queues/${queueId}/items`, { items: ['e0', 'e1', 'e2'].map((target_id) => ({ target_id })) });
  expect(added.body.added, added.text).toBe(3);
  expect(await review(alice, { correct: { string_value: 'True' }, quality: { value: 4 } }, 'fixed 0')).toBe('e0');
  expect(await review(bob, { correct: { string_value: 'False' }, quality: { value: 3 } }, 'fixed 0, by bob')).toBe('e0');
  expect(await review(alice, { correct: { string_value: 'False' }, quality: { value: 1 } }, '  ')).toBe('e1');
  expect(await review(bob, { correct: { string_value: 'True' }, quality: { value: 2 } })).toBe('e1');
  expect(await review(alice, { quality: { value: 5 } }, 'never exported')).toBe('e2');
  // A score written beside the queue (not by a completion) is no part of the export.
  const note = await as(INIT_KEY, 'POST', '/scores', { trace_id: 'e1', name: 'correction', value: 'not reviewed here', data_type: 'TEXT' });
  expect(note.status, note.text).toBe(200);
});

const expectedRows = [
  {
    data: { question: 'q0', answer: 'a0', correct: 'True', quality: 3.5, correct_answer: 'fixed 0, by bob' },
    source_trace_id: 'e0',
    source_span_id: 'e0-root',
  },
  { data: { question: 'q1', answer: 'a1', correct: 'False', quality: 1.5 }, source_trace_id: 'e1', source_span_id: 'e1-root' },
];

describe('POST /annotation-queues/{id}/export', () => {
  it("previews the done items' rows, scores as columns and the correction as the expected answer, writing nothing", async () => {
    const testset = await createTestset([{ question: 'typed', correct_answer: 'by hand' }]);
    const preview = await exportQueue({ testset_id: testset.id, mapping, preview: true });
    expect(preview.status, preview.text).toBe(200);
    // True and False tie on each item, the first given wins; quality is the mean; bob's correction is the later one.
    expect(preview.body).toMatchObject({ testset_id: testset.id, matched: 2, capped: false, skipped: 0, revision: null });
    expect(preview.body.rows).toEqual(expectedRows.map((row) => ({ ...row, id: null, position: null })));
    const revisions = await as(INIT_KEY, 'GET', `/testsets/${testset.id}/revisions`);
    expect(revisions.body).toHaveLength(1);
  });

  it('appends the rows to a test set as a new revision that keeps their sources', async () => {
    const testset = await createTestset([{ question: 'typed', correct_answer: 'by hand' }]);
    const written = await exportQueue({ testset_id: testset.id, mapping, limit: 1 });
    expect(written.status, written.text).toBe(200);
    expect(written.body).toMatchObject({ testset_id: testset.id, matched: 2, capped: true, revision: 2 });
    const revision = await as(INIT_KEY, 'GET', `/testsets/${testset.id}/revisions/2`);
    expect(revision.body).toMatchObject({ change: 'rows_from_queue', row_count: 2 });
    expect(revision.body.rows[1]).toMatchObject({ ...expectedRows[0], position: 1 });
    expect(revision.body.columns).toEqual(['question', 'correct_answer', 'answer', 'correct', 'quality']);
  });

  it('makes a new test set of the rows when given a name', async () => {
    const written = await exportQueue({ testset_name: 'from review', mapping: { question: '$.input.question' }, expected_column: 'expected' });
    expect(written.status, written.text).toBe(200);
    const read = await as(INIT_KEY, 'GET', `/testsets/${written.body.testset_id}`);
    expect(read.body).toMatchObject({ name: 'from review' });
    expect(read.body.csvdata).toEqual([
      { question: 'q0', correct: 'True', quality: 3.5, expected: 'fixed 0, by bob' },
      { question: 'q1', correct: 'False', quality: 1.5 },
    ]);
    const revisions = await as(INIT_KEY, 'GET', `/testsets/${written.body.testset_id}/revisions`);
    expect(revisions.body.map((revision: { change: string }) => revision.change)).toEqual(['rows_from_queue']);
  });

  it("stores each reviewer's correction as a TEXT score of the item", async () => {
    const scores = await as(INIT_KEY, 'GET', '/scores?trace_id=e0&name=correction&source=annotation');
    expect(scores.body.scores.map((score: { string_value: string }) => score.string_value).sort()).toEqual(['fixed 0', 'fixed 0, by bob']);
  });

  it('answers 422 naming the field, 404 for an unknown test set, 403 to a viewer', async () => {
    const fields = async (body: unknown) => {
      const response = await exportQueue(body);
      expect(response.status, response.text).toBe(422);
      return response.body.detail.map((issue: { loc: unknown[] }) => issue.loc.join('.'));
    };
    expect(await fields({ testset_id: 'a', testset_name: 'b', mapping })).toEqual(['body.testset_name']);
    expect(await fields({ mapping })).toEqual(['body.testset_id']);
    expect(await fields({ testset_name: 'x', mapping: { question: '$.inputs' } })).toEqual(['body.mapping.question']);
    expect(await fields({ testset_name: 'x', mapping: {} })).toEqual(['body.mapping']);
    expect(await fields({ testset_name: 'x', mapping, expected_column: ' ' })).toEqual(['body.expected_column']);
    expect(await fields({ testset_name: 'x', mapping, limit: 0 })).toEqual(['body.limit']);
    expect((await exportQueue({ testset_id: 'no-such-set', mapping })).status).toBe(404);
    expect((await as(INIT_KEY, 'POST', '/annotation-queues/no-such-queue/export', { testset_name: 'x', mapping })).status).toBe(404);
    expect((await exportQueue({ testset_name: 'x', mapping, preview: true }, viewer)).status).toBe(403);

    const empty = await as(INIT_KEY, 'POST', '/annotation-queues', { name: 'empty', target_type: 'trace', score_config_ids: [config.correct] });
    const nothing = await as(INIT_KEY, 'POST', `/annotation-queues/${empty.body.id}/export`, { testset_name: 'x', mapping });
    expect(nothing.status).toBe(422);
    expect(nothing.body.detail[0].msg).toMatch(/no reviewed items/);
    const sessions = await as(INIT_KEY, 'POST', '/annotation-queues', { name: 's', target_type: 'session', score_config_ids: [config.correct] });
    const refused = await as(INIT_KEY, 'POST', `/annotation-queues/${sessions.body.id}/export`, { testset_name: 'x', mapping });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body']);
  });
});

describe('exportAnnotationQueue', () => {
  const EXPORT = `mutation($id: ID!, $input: AnnotationQueueExportInput!) {
    exportAnnotationQueue(id: $id, input: $input) {
      testset { name rowCount } matched capped skipped revision { number change } rows { rowId data sourceTraceId sourceSpanId }
    }
  }`;
  const graphql = async (variables: Record<string, unknown>) => (await as(INIT_KEY, 'POST', '/graphql', { query: EXPORT, variables })).body;

  it('previews and writes as REST does, faults naming the REST field', async () => {
    const id = globalId('AnnotationQueue', queueId);
    const preview = await graphql({ id, input: { testsetName: 'by graphql', mapping, preview: true } });
    expect(preview.errors).toBeUndefined();
    expect(preview.data.exportAnnotationQueue).toMatchObject({ testset: null, matched: 2, capped: false, skipped: 0, revision: null });
    expect(preview.data.exportAnnotationQueue.rows.map((row: { data: object }) => row.data)).toEqual(expectedRows.map((row) => row.data));

    const testset = await createTestset([{ question: 'typed' }]);
    const written = await graphql({
      id,
      input: { testsetId: globalId('Testset', testset.id), mapping, expectedColumn: 'expected' },
    });
    expect(written.errors).toBeUndefined();
    expect(written.data.exportAnnotationQueue).toMatchObject({ testset: { rowCount: 3 }, revision: { number: 2, change: 'ROWS_FROM_QUEUE' } });
    expect(written.data.exportAnnotationQueue.rows[0]).toMatchObject({ sourceTraceId: 'e0', sourceSpanId: 'e0-root', rowId: expect.any(String) });
    expect(written.data.exportAnnotationQueue.rows.map((row: { data: object }) => row.data)).toEqual(
      expectedRows.map(({ data: { correct_answer, ...data } }) => (correct_answer ? { ...data, expected: correct_answer } : data)),
    );

    const bad = await graphql({ id, input: { testsetName: 'x', mapping: { q: '$.nowhere' } } });
    expect(bad.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(JSON.stringify(bad.errors[0].extensions)).toContain('mapping');
  });
});
