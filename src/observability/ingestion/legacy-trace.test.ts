// Legacy ingest (POST /observability/trace, legacy-trace.ts): batches in any order, idempotent
// re-sends, and the Trace roll-up kept by writeSpans. Its validation is legacy-trace.validation.test.ts.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { at, legacySpan, T0 } from '../../../test/helpers/spans.js';

const server = useTestServer();

const ingest = (body: unknown) => server.request('POST', '/observability/trace', body);
const storedTrace = (traceId: string) => server.assay.db.trace.findFirst({ where: { traceId } });
const storedSpan = (traceId: string, spanId: string) => server.assay.db.span.findFirst({ where: { traceId, spanId } });

describe('POST /observability/trace', () => {
  const traceId = 'batches';
  // root → (llm-1, tool-2) ; llm-1 → retriever-3. Sent leaves first, the root last.
  const batches = [
    [legacySpan('retriever-3', 'llm-1', 2, 3, { spankind: 'retriever', tokens: { prompt_tokens: 1, completion_tokens: 0 } })],
    [
      legacySpan('tool-2', 'root', 5, 9, { spankind: 'Tool', status: 'error', cost: 0.25 }),
      legacySpan('llm-1', 'root', 1, 4, {
        spankind: 'LLM',
        status: 'ok',
        tokens: { prompt_tokens: 10, completion_tokens: 5 },
        cost: 0.5,
      }),
    ],
    [
      legacySpan('root', null, 0, 10, {
        spankind: 'workflow',
        environment: 'production',
        user: 'user-7',
        session_id: 'session-1',
        app_id: 'app-1',
        variant_id: 'variant-1',
        tokens: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 100 },
      }),
    ],
  ];

  it('stores spans sent in several batches, children before their parents', async () => {
    const first = await ingest({ trace: traceId, spans: batches[0] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ trace_id: traceId, spans: 1 });

    // With only an orphan stored, the orphan is the root for now.
    expect(await storedTrace(traceId)).toMatchObject({ rootSpanId: 'retriever-3', name: 'span retriever-3', spanCount: 1 });

    expect((await ingest({ trace: traceId, spans: batches[1] })).body).toEqual({ trace_id: traceId, spans: 2 });
    expect((await ingest({ trace: traceId, spans: batches[2] })).body).toEqual({ trace_id: traceId, spans: 1 });
  });

  it('rolls the trace up: root, times, counts, token and cost sums, root attributes', async () => {
    const trace = await storedTrace(traceId);
    expect(trace).toMatchObject({
      traceId,
      rootSpanId: 'root',
      name: 'span root',
      startTime: new Date(at(0)),
      endTime: new Date(at(10)),
      latency: 10,
      spanCount: 4,
      errorCount: 1,
      promptTokens: 13,
      completionTokens: 8,
      // root's explicit 100 + llm-1's 15 + retriever-3's 1
      totalTokens: 116,
      cost: 0.75,
      environment: 'production',
      userId: 'user-7',
      sessionId: 'session-1',
      appId: 'app-1',
      variantId: 'variant-1',
    });
  });

  it('stores kinds and statuses upper-case, and defaults them to UNKNOWN and UNSET', async () => {
    expect(await storedSpan(traceId, 'tool-2')).toMatchObject({ spanKind: 'TOOL', statusCode: 'ERROR' });
    expect(await storedSpan(traceId, 'llm-1')).toMatchObject({ spanKind: 'LLM', statusCode: 'OK' });
    await ingest({ trace: 'defaults', spans: [legacySpan('d', null, 0, 1, { spankind: null })] });
    expect(await storedSpan('defaults', 'd')).toMatchObject({ spanKind: 'UNKNOWN', statusCode: 'UNSET' });
  });

  it('defaults total_tokens to the sum of the others, and keeps null usage null', async () => {
    expect(await storedSpan(traceId, 'llm-1')).toMatchObject({ promptTokens: 10, completionTokens: 5, totalTokens: 15 });
    expect(await storedSpan(traceId, 'retriever-3')).toMatchObject({ promptTokens: 1, completionTokens: 0, totalTokens: 1 });
    expect(await storedSpan(traceId, 'root')).toMatchObject({ totalTokens: 100 });
    expect(await storedSpan(traceId, 'tool-2')).toMatchObject({ promptTokens: null, completionTokens: null, totalTokens: null });
    expect(await storedTrace('defaults')).toMatchObject({ promptTokens: null, totalTokens: null, cost: null });
  });

  it('re-sending the same spans overwrites them and never duplicates', async () => {
    for (const batch of batches) expect((await ingest({ trace: traceId, spans: batch })).status).toBe(200);
    expect(await server.assay.db.span.count({ where: { traceId } })).toBe(4);
    expect(await storedTrace(traceId)).toMatchObject({ spanCount: 4, errorCount: 1, totalTokens: 116, cost: 0.75 });

    // A changed copy replaces the stored one and the roll-up follows.
    const fixed = { ...batches[1][0], status: 'OK', cost: 1, name: 'tool fixed' };
    await ingest({ trace: traceId, spans: [fixed] });
    expect(await storedSpan(traceId, 'tool-2')).toMatchObject({ statusCode: 'OK', cost: 1, name: 'tool fixed' });
    expect(await storedTrace(traceId)).toMatchObject({ spanCount: 4, errorCount: 0, cost: 1.5 });
  });

  it('stores a large batch, then overwrites it when re-sent with changes and a new span (PostgreSQL: COPY, then its upsert fallback)', async () => {
    const spans = (name: string, count: number) =>
      Array.from({ length: count }, (_, i) => legacySpan(`big-${i}`, i === 0 ? null : 'big-0', i, i + 1, { name: `${name}\t${i}\\` }));
    expect((await ingest({ trace: 'big', spans: spans('first', 100) })).body).toEqual({ trace_id: 'big', spans: 100 });
    expect(await storedSpan('big', 'big-7')).toMatchObject({ name: 'first\t7\\' }); // COPY's separators escaped
    expect((await ingest({ trace: 'big', spans: spans('again', 101) })).body).toEqual({ trace_id: 'big', spans: 101 });
    expect(await server.assay.db.span.count({ where: { traceId: 'big' } })).toBe(101);
    expect(await storedSpan('big', 'big-7')).toMatchObject({ name: 'again\t7\\' });
    expect(await storedTrace('big')).toMatchObject({ spanCount: 101, rootSpanId: 'big-0', name: 'again\t0\\' });
  });

  it('counts every span when batches of one trace arrive concurrently', async () => {
    const batches = Array.from({ length: 12 }, (_, b) =>
      Array.from({ length: 25 }, (_, i) => legacySpan(`b${b}-s${i}`, b === 0 && i === 0 ? null : 'b0-s0', b * 25 + i, b * 25 + i + 1, { cost: 0.01 })),
    );
    const responses = await Promise.all(batches.map((spans) => ingest({ trace: 'concurrent', spans })));
    expect(responses.map((response) => response.status)).toEqual(batches.map(() => 200));
    const trace = await storedTrace('concurrent');
    expect(trace).toMatchObject({ spanCount: 300, rootSpanId: 'b0-s0', latency: 300 });
    expect(trace?.cost).toBeCloseTo(3, 9);
  });

  it('stores a span sent twice in one request once, the last copy winning', async () => {
    const response = await ingest({
      trace: 'twice',
      spans: [legacySpan('s', null, 0, 1, { name: 'first' }), legacySpan('s', null, 0, 2, { name: 'second' })],
    });
    expect(response.body).toEqual({ trace_id: 'twice', spans: 1 });
    expect(await storedSpan('twice', 's')).toMatchObject({ name: 'second', latency: 2 });
    expect(await storedTrace('twice')).toMatchObject({ spanCount: 1 });
  });

  it('keeps content, config, variant, raw attributes, and the model named by the config', async () => {
    const content = {
      inputs: { question: 'What is 2+2?', history: [{ role: 'user', content: 'hi' }] },
      outputs: { answer: '4' },
      internals: { retrieved: 3 },
      config: { model: 'gpt-4o-mini', temperature: 0.2 },
      attributes: { 'custom.key': [1, 'two', { three: 3 }], nested: { deep: true } },
    };
    await ingest({
      trace: 'content',
      spans: [legacySpan('c', null, 0, 1, { ...content, variant_id: 'v1', variant_name: 'baseline', revision: 3 })],
    });
    expect(await storedSpan('content', 'c')).toMatchObject({
      ...content,
      model: 'gpt-4o-mini',
      variantId: 'v1',
      variantName: 'baseline',
      variantRevision: 3,
    });
  });

  it('keeps times to the nanosecond and reads offsets', async () => {
    await ingest({
      trace: 'precise',
      spans: [{ id: 'p', name: 'p', start_time: '2024-05-01T14:00:00.123456789+02:00', end_time: '2024-05-01T12:00:00.123457289Z' }],
    });
    const span = await storedSpan('precise', 'p');
    expect(span?.startTimeUnixNano).toBe(BigInt(T0) * 1_000_000n + 123_456_789n);
    expect(span?.endTimeUnixNano).toBe(BigInt(T0) * 1_000_000n + 123_457_289n);
    expect(span?.startTime.toISOString()).toBe('2024-05-01T12:00:00.123Z');
    expect(span?.latency).toBeCloseTo(500e-9, 15);
  });

  it('is served under /api and with a trailing slash', async () => {
    expect((await server.request('POST', '/api/observability/trace/', { trace: 'api', spans: [legacySpan('a', null, 0, 1)] })).body).toEqual({
      trace_id: 'api',
      spans: 1,
    });
  });
});
