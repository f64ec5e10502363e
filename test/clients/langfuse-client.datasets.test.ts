// The real `@langfuse/client` on Assay's test sets as Langfuse datasets (docs/langfuse.md#datasets):
// a dataset made from production traces (items naming their source trace and span, some written
// through the SDK, some by Assay's own rows/from-spans on the same test set) read back with
// `dataset.get` with its items and sources; an item archived, one read and one deleted through
// the api client; unknown names and ids refused with the SDK's error.
import { LangfuseClient } from '@langfuse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { refusal } from './helpers/langfuse.js';

const KEY = 'langfuse-datasets-key-0123456789abcdefghij';
let server: TestServer;
let langfuse: LangfuseClient;
const bearer = { authorization: `Bearer ${KEY}` };

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  langfuse = new LangfuseClient({ publicKey: 'pk-lf-from-langfuse', secretKey: KEY, baseUrl: server.baseUrl });
});

afterAll(async () => {
  await langfuse.shutdown();
  await server.close();
});

async function storeTrace(trace: string, question: string, answer: string) {
  const stored = await server.request(
    'POST',
    '/observability/trace',
    {
      trace,
      spans: [
        {
          id: `${trace}-root`,
          name: 'support-bot',
          spankind: 'WORKFLOW',
          start_time: '2026-05-01T10:00:00Z',
          end_time: '2026-05-01T10:00:02Z',
          inputs: { question },
          outputs: { answer },
        },
        {
          id: `${trace}-llm`,
          parent_span_id: `${trace}-root`,
          name: 'chat',
          spankind: 'LLM',
          start_time: '2026-05-01T10:00:00Z',
          end_time: '2026-05-01T10:00:01Z',
          inputs: { question },
          outputs: { answer },
        },
      ],
    },
    bearer,
  );
  expect(stored.status).toBe(200);
}

describe('@langfuse/client datasets against Assay', () => {
  it('builds a dataset from traces and reads it back with its items and sources', async () => {
    await storeTrace('trace-refund', 'How do I get a refund?', 'Ask support.');
    await storeTrace('trace-hours', 'When are you open?', 'Nine to five.');
    await storeTrace('trace-shipping', 'Do you ship abroad?', 'Yes.');

    const dataset = await langfuse.api.datasets.create({ name: 'support-regressions', description: 'Failures seen in production', metadata: { owner: 'qa' } });
    expect(dataset).toMatchObject({ name: 'support-regressions', description: 'Failures seen in production', metadata: { owner: 'qa' } });

    // Through the SDK: the questions of two traces' LLM spans, with the corrected answers.
    const refund = await langfuse.dataset.createItem({
      datasetName: 'support-regressions',
      input: { question: 'How do I get a refund?' },
      expectedOutput: 'Open Orders, choose the order, press Refund.',
      metadata: { reviewer: 'ada' },
      sourceTraceId: 'trace-refund',
      sourceObservationId: 'trace-refund-llm',
    });
    expect(refund).toMatchObject({ status: 'ACTIVE', datasetId: dataset.id, sourceTraceId: 'trace-refund', sourceObservationId: 'trace-refund-llm' });
    const hours = await langfuse.api.datasetItems.create({
      datasetName: 'support-regressions',
      id: 'hours-case',
      input: { question: 'When are you open?' },
      expectedOutput: 'Nine to five, Monday to Friday.',
      sourceTraceId: 'trace-hours',
      sourceObservationId: 'trace-hours-llm',
    });
    expect(hours.id).toBe('hours-case');

    // Through Assay: the same test set gets a row made from the third trace's root span.
    const fromSpans = await server.request(
      'POST',
      `/testsets/${dataset.id}/rows/from-spans`,
      { trace_ids: ['trace-shipping'], mapping: { question: '$.input.question', correct_answer: '$.output.answer' } },
      bearer,
    );
    expect(fromSpans.status).toBe(200);

    const fetched = await langfuse.dataset.get('support-regressions', { fetchItemsPageSize: 2 });
    expect(fetched).toMatchObject({ id: dataset.id, name: 'support-regressions', description: 'Failures seen in production', metadata: { owner: 'qa' } });
    expect(
      fetched.items.map((item) => ({
        input: item.input,
        expectedOutput: item.expectedOutput,
        sourceTraceId: item.sourceTraceId,
        sourceObservationId: item.sourceObservationId,
        status: item.status,
      })),
    ).toEqual([
      {
        input: { question: 'How do I get a refund?' },
        expectedOutput: 'Open Orders, choose the order, press Refund.',
        sourceTraceId: 'trace-refund',
        sourceObservationId: 'trace-refund-llm',
        status: 'ACTIVE',
      },
      {
        input: { question: 'When are you open?' },
        expectedOutput: 'Nine to five, Monday to Friday.',
        sourceTraceId: 'trace-hours',
        sourceObservationId: 'trace-hours-llm',
        status: 'ACTIVE',
      },
      {
        input: { question: 'Do you ship abroad?' },
        expectedOutput: 'Yes.',
        sourceTraceId: 'trace-shipping',
        sourceObservationId: 'trace-shipping-root',
        status: 'ACTIVE',
      },
    ]);
    expect(fetched.items[0]).toMatchObject({ id: refund.id, metadata: { reviewer: 'ada' }, datasetName: 'support-regressions' });
    expect(typeof fetched.items[0].link).toBe('function');

    // The items are the test set's rows, each keeping its source; every write was a revision.
    const testset = await server.request('GET', `/testsets/${dataset.id}`, undefined, bearer);
    expect(testset.body.csvdata).toEqual([
      { question: 'How do I get a refund?', correct_answer: 'Open Orders, choose the order, press Refund.' },
      { question: 'When are you open?', correct_answer: 'Nine to five, Monday to Friday.' },
      { question: 'Do you ship abroad?', correct_answer: 'Yes.' },
    ]);
    const revisions = await server.request('GET', `/testsets/${dataset.id}/revisions`, undefined, bearer);
    expect(revisions.body.map((revision: { change: string }) => revision.change)).toEqual(['created', 'rows_added', 'rows_added', 'rows_from_spans']);

    // Filtered by source, read one, archived one (it stays listed), deleted one.
    const bySource = await langfuse.api.datasetItems.list({ sourceTraceId: 'trace-hours' });
    expect(bySource.data.map((item) => item.id)).toEqual(['hours-case']);
    expect(await langfuse.api.datasetItems.get('hours-case')).toMatchObject({ id: 'hours-case', sourceObservationId: 'trace-hours-llm' });
    const archived = await langfuse.api.datasetItems.create({ datasetName: 'support-regressions', id: 'hours-case', status: 'ARCHIVED' });
    expect(archived).toMatchObject({ status: 'ARCHIVED', input: { question: 'When are you open?' } });
    expect((await langfuse.dataset.get('support-regressions')).items.map((item) => item.status)).toEqual(['ACTIVE', 'ARCHIVED', 'ACTIVE']);
    expect(await langfuse.api.datasetItems.delete(refund.id)).toEqual({ message: 'Dataset item successfully deleted' });
    expect((await langfuse.api.datasetItems.list({ datasetName: 'support-regressions' })).meta.totalItems).toBe(2);
    expect((await langfuse.api.datasets.list()).data.map((listed) => listed.name)).toEqual(['support-regressions']);
  });

  it('refuses unknown datasets and items with the SDK’s error', async () => {
    expect((await refusal(langfuse.api.datasets.get('no-such-dataset'))).statusCode).toBe(404);
    expect((await refusal(langfuse.api.datasetItems.get('no-such-item'))).statusCode).toBe(404);
    expect((await refusal(langfuse.api.datasetItems.create({ datasetName: 'no-such-dataset', input: 'x' }))).statusCode).toBe(404);
    const bad = await refusal(langfuse.api.datasetItems.create({ datasetName: 'support-regressions', sourceObservationId: 'span-only' }));
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('sourceObservationId');
  });
});
