// The real Langfuse SDK against Assay (docs/langfuse.md), as an app moving from Langfuse uses it:
// only the base URL and the secret key (an Assay key) change. A trace is sent by
// `@langfuse/tracing` through `@langfuse/otel`'s span processor; `@langfuse/client` creates score
// configs, sends scores of each data type on the trace, a span and the session with `score.create`
// and flushes them, sends them again with the same ids (updated, not doubled), reads them back
// through its `api` client (v2, v3, by id), sees a score that misfits its config refused, deletes
// one, and lists the session.
import { LangfuseAPIError, LangfuseOtelSpanAttributes } from '@langfuse/core';
import { LangfuseClient } from '@langfuse/client';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import { setLangfuseTracerProvider, startObservation } from '@langfuse/tracing';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const KEY = 'langfuse-sdk-key-0123456789abcdefghij';
const SESSION = 'chat-session-42';
let server: TestServer;
let langfuse: LangfuseClient;
let provider: NodeTracerProvider;
const trace = { traceId: '', rootId: '', generationId: '' };

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  const keys = { publicKey: 'pk-lf-from-langfuse', secretKey: KEY, baseUrl: server.baseUrl };
  provider = new NodeTracerProvider({ spanProcessors: [new LangfuseSpanProcessor({ ...keys, exportMode: 'immediate' })] });
  setLangfuseTracerProvider(provider);
  langfuse = new LangfuseClient(keys);

  const root = startObservation('support chat', { input: { question: 'Where is my order?' } });
  // The session is a trace attribute: the one `propagateAttributes` would set from its context.
  root.otelSpan.setAttribute(LangfuseOtelSpanAttributes.TRACE_SESSION_ID, SESSION);
  const generation = root.startObservation(
    'answer',
    { model: 'gpt-4o-mini', input: [{ role: 'user', content: 'Where is my order?' }] },
    { asType: 'generation' },
  );
  generation.update({ output: { role: 'assistant', content: 'On its way.' } }).end();
  root.update({ output: { answer: 'On its way.' } }).end();
  await provider.forceFlush();
  Object.assign(trace, { traceId: root.traceId, rootId: root.id, generationId: generation.id });
});

afterAll(async () => {
  await langfuse.shutdown();
  await provider.shutdown();
  setLangfuseTracerProvider(null);
  await server.close();
});

describe('@langfuse/client against Assay', () => {
  let configs: Record<'stars' | 'tone' | 'helpful', string>;

  it('creates score configs through its api client', async () => {
    const stars = await langfuse.api.scoreConfigs.create({ name: 'stars', dataType: 'NUMERIC', minValue: 1, maxValue: 5 });
    const tone = await langfuse.api.scoreConfigs.create({
      name: 'tone',
      dataType: 'CATEGORICAL',
      categories: [
        { label: 'friendly', value: 1 },
        { label: 'curt', value: 0 },
      ],
    });
    const helpful = await langfuse.api.scoreConfigs.create({ name: 'helpful', dataType: 'BOOLEAN', description: 'Did it help?' });
    expect(stars).toMatchObject({ name: 'stars', dataType: 'NUMERIC', minValue: 1, maxValue: 5, isArchived: false });
    expect(helpful.categories).toEqual([
      { label: 'True', value: 1 },
      { label: 'False', value: 0 },
    ]);
    configs = { stars: stars.id, tone: tone.id, helpful: helpful.id };
    const listed = await langfuse.api.scoreConfigs.get({ limit: 2 });
    expect(listed.meta).toEqual({ page: 1, limit: 2, totalItems: 3, totalPages: 2 });
    expect(await langfuse.api.scoreConfigs.getById(tone.id)).toEqual(tone);
  });

  it('sends scores of each data type on a trace, a span and a session, and reads them back', async () => {
    langfuse.score.create({ id: 'trace-stars', traceId: trace.traceId, name: 'stars', value: 4, configId: configs.stars, comment: 'good' });
    langfuse.score.create({ id: 'trace-tone', traceId: trace.traceId, name: 'tone', value: 'friendly', configId: configs.tone });
    langfuse.score.create({ id: 'trace-note', traceId: trace.traceId, name: 'note', value: 'Polite, but vague.', dataType: 'TEXT' });
    langfuse.score.create({
      id: 'span-helpful',
      traceId: trace.traceId,
      observationId: trace.generationId,
      name: 'helpful',
      value: 1,
      configId: configs.helpful,
    });
    langfuse.score.create({ id: 'session-csat', sessionId: SESSION, name: 'csat', value: 0.9, metadata: { survey: 'end of chat' } });
    await langfuse.score.flush();

    const onTrace = await langfuse.api.scores.getMany({ traceId: trace.traceId });
    expect(onTrace.meta.totalItems).toBe(4);
    const byId = Object.fromEntries(onTrace.data.map((score) => [score.id, score]));
    expect(byId['trace-stars']).toMatchObject({ dataType: 'NUMERIC', value: 4, configId: configs.stars, comment: 'good', source: 'API' });
    expect(byId['trace-stars'].trace).toMatchObject({ sessionId: SESSION, tags: [] });
    expect(byId['trace-tone']).toMatchObject({ dataType: 'CATEGORICAL', value: 1, stringValue: 'friendly' });
    expect(byId['trace-note']).toMatchObject({ dataType: 'TEXT', stringValue: 'Polite, but vague.' });
    expect(byId['span-helpful']).toMatchObject({ dataType: 'BOOLEAN', value: 1, stringValue: 'True', observationId: trace.generationId });

    const onSession = await langfuse.api.scores.getMany({ sessionId: SESSION });
    expect(onSession.data).toEqual([
      expect.objectContaining({ id: 'session-csat', sessionId: SESSION, traceId: null, value: 0.9, metadata: { survey: 'end of chat' } }),
    ]);
    expect(await langfuse.api.scores.getById('span-helpful')).toMatchObject({ name: 'helpful', traceId: trace.traceId });

    const v3 = await langfuse.api.scoresV3.getManyV3({ traceId: trace.traceId, observationId: trace.generationId, fields: 'subject' });
    expect(v3.data).toEqual([
      expect.objectContaining({
        id: 'span-helpful',
        dataType: 'BOOLEAN',
        value: true,
        subject: { kind: 'observation', id: trace.generationId, traceId: trace.traceId },
      }),
    ]);
  });

  it('updates scores sent again with the same ids, never doubling them', async () => {
    langfuse.score.create({ id: 'trace-stars', traceId: trace.traceId, name: 'stars', value: 2, configId: configs.stars, comment: 'on second thought' });
    langfuse.score.create({ id: 'trace-tone', traceId: trace.traceId, name: 'tone', value: 'curt', configId: configs.tone });
    langfuse.score.create({ id: 'session-csat', sessionId: SESSION, name: 'csat', value: 0.4 });
    await langfuse.flush();
    const onTrace = await langfuse.api.scores.getMany({ traceId: trace.traceId });
    expect(onTrace.meta.totalItems).toBe(4);
    const byId = Object.fromEntries(onTrace.data.map((score) => [score.id, score]));
    expect(byId['trace-stars']).toMatchObject({ value: 2, comment: 'on second thought' });
    expect(byId['trace-tone']).toMatchObject({ value: 0, stringValue: 'curt' });
    expect((await langfuse.api.scores.getMany({ sessionId: SESSION })).data).toEqual([expect.objectContaining({ id: 'session-csat', value: 0.4 })]);
  });

  it('sees scores that misfit their config refused, through ingestion and the scores route', async () => {
    const answer = await langfuse.api.ingestion.batch({
      batch: [
        {
          type: 'score-create',
          id: 'event-9-stars',
          timestamp: new Date().toISOString(),
          body: { id: 'bad-stars', traceId: trace.traceId, name: 'stars', value: 9, configId: configs.stars },
        },
        {
          type: 'score-create',
          id: 'event-bored',
          timestamp: new Date().toISOString(),
          body: { traceId: trace.traceId, name: 'tone', value: 'bored', configId: configs.tone },
        },
      ],
    });
    expect(answer.successes).toEqual([]);
    expect(answer.errors.map((error) => [error.id, error.status])).toEqual([
      ['event-9-stars', 400],
      ['event-bored', 400],
    ]);
    expect(String(answer.errors[0].error)).toMatch(/^value: /);

    const refused = await langfuse.api.scores
      .create({ traceId: trace.traceId, name: 'stars', value: 0, configId: configs.stars })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LangfuseAPIError);
    expect((refused as LangfuseAPIError).statusCode).toBe(400);
    expect((refused as LangfuseAPIError).body).toMatchObject({ message: 'Invalid request data', error: [expect.objectContaining({ path: ['value'] })] });
    expect((await langfuse.api.scores.getMany({ traceId: trace.traceId })).meta.totalItems).toBe(4);
  });

  it('creates and deletes a score through the scores route', async () => {
    const { id } = await langfuse.api.scores.create({ traceId: trace.traceId, name: 'stars', value: 5, configId: configs.stars });
    expect(await langfuse.api.scores.getById(id)).toMatchObject({ dataType: 'NUMERIC', value: 5 });
    await langfuse.api.legacy.scoreV1.delete(id);
    const missing = await langfuse.api.scores.getById(id).catch((error: unknown) => error);
    expect((missing as LangfuseAPIError).statusCode).toBe(404);
  });

  it('lists the session and reads it with its trace', async () => {
    const sessions = await langfuse.api.sessions.list();
    expect(sessions.meta).toMatchObject({ page: 1, totalItems: 1, totalPages: 1 });
    expect(sessions.data).toEqual([expect.objectContaining({ id: SESSION, environment: expect.any(String) })]);
    const session = await langfuse.api.sessions.get(SESSION);
    // Its input and output are the root span's, once Assay reads `langfuse.observation.input` (issue 24).
    expect(session.traces).toEqual([expect.objectContaining({ id: trace.traceId, sessionId: SESSION, name: 'support chat', tags: [], public: false })]);
    expect(session).toMatchObject({ id: SESSION, createdAt: expect.any(String), projectId: expect.any(String) });
  });
});
