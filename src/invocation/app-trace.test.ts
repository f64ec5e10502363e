// Reading the app's own trace from an endpoint's answer (v2 and v3) and placing it beneath the
// call's span: odd shapes are skipped, never fatal; parents outside the answer fall to the call.
import { describe, expect, it } from 'vitest';
import type { SpanRecord } from '../observability/ingestion/span-record.js';
import { appSpanRecords, MAX_APP_SPANS, readAppSpans } from './app-trace.js';

const call: SpanRecord = {
  traceId: 'a'.repeat(32),
  spanId: 'b'.repeat(16),
  parentSpanId: null,
  name: 'variant',
  spanKind: 'CHAIN',
  statusCode: 'OK',
  startTimeUnixNano: 1_000n,
  endTimeUnixNano: 2_000n,
  environment: 'assay-evaluation',
  appId: 'app',
  attributes: {},
};

describe('readAppSpans', () => {
  it('reads v2 spans, skipping entries that are not spans, with times, kinds, status and reported figures', () => {
    const spans = readAppSpans({
      data: 'x',
      trace: {
        spans: [
          'not a span',
          { name: 'no id' },
          {
            id: 1,
            name: 'root',
            start_time: '2024-07-25T17:06:46Z',
            end_time: '2024-07-25T17:06:47.5Z',
            spankind: 'workflow',
            status: { code: 'STATUS_CODE_ERROR', message: 'boom' },
          },
          { id: 'child', parent_span_id: 1, name: 'llm', spankind: 'LLM', metadata: { cost: 0.5, latency: 1.2 }, start_time: 'yesterday' },
        ],
      },
    });
    expect(spans.map((span) => [span.id, span.parentId, span.name, span.kind, span.status])).toEqual([
      ['1', null, 'root', 'WORKFLOW', 'ERROR'],
      ['child', '1', 'llm', 'LLM', 'UNSET'],
    ]);
    expect(spans[0]).toMatchObject({ statusMessage: 'boom', startNs: 1_721_927_206_000_000_000n, endNs: 1_721_927_207_500_000_000n });
    expect(spans[1]).toMatchObject({ startNs: null, reported: { 'app.cost': 0.5, 'app.latency': 1.2 } });
  });

  it('reads v3 nodes depth first, children given one by one or as lists', () => {
    const node = (id: string, name: string, nodes?: Record<string, unknown>) => ({
      node: { id, name, type: 'query' },
      data: { outputs: id },
      ...(nodes && { nodes }),
    });
    const spans = readAppSpans({
      version: '3.0',
      data: {},
      tree: { nodes: [node('1', 'rag', { retriever: node('2', 'retriever'), tools: [node('3', 'a'), node('4', 'b'), 'junk'] })] },
    });
    expect(spans.map((span) => [span.id, span.parentId, span.name, span.kind, span.outputs])).toEqual([
      ['1', null, 'rag', 'RETRIEVER', '1'],
      ['2', '1', 'retriever', 'RETRIEVER', '2'],
      ['3', '1', 'a', 'RETRIEVER', '3'],
      ['4', '1', 'b', 'RETRIEVER', '4'],
    ]);
  });

  it(`keeps at most ${MAX_APP_SPANS} spans, and none of answers without a trace`, () => {
    const many = Array.from({ length: MAX_APP_SPANS + 5 }, (_, i) => ({ id: String(i), name: 's' }));
    expect(readAppSpans({ data: 'x', trace: { spans: many } })).toHaveLength(MAX_APP_SPANS);
    expect(readAppSpans({ data: 'x', trace: { cost: 1 } })).toEqual([]);
    expect(readAppSpans({ data: 'x', trace: null })).toEqual([]);
    expect(readAppSpans({ message: 'x' })).toEqual([]);
  });
});

describe('appSpanRecords', () => {
  it("puts the app's roots and orphans beneath the call, with new ids and the call's times where the app gave none", () => {
    const records = appSpanRecords(
      call,
      readAppSpans({
        data: 'x',
        trace: {
          spans: [
            { id: 'r', name: 'rag' },
            { id: 'c', parent_span_id: 'r', name: 'retriever' },
            { id: 'o', parent_span_id: 'gone', name: 'orphan' },
          ],
        },
      }),
    );
    const [root, child, orphan] = records;
    expect(root).toMatchObject({
      traceId: call.traceId,
      parentSpanId: call.spanId,
      startTimeUnixNano: 1_000n,
      endTimeUnixNano: 2_000n,
      environment: 'assay-evaluation',
      appId: 'app',
    });
    expect(child.parentSpanId).toBe(root.spanId);
    expect(orphan.parentSpanId).toBe(call.spanId);
    expect(new Set(records.map((record) => record.spanId)).size).toBe(3);
    for (const record of records) expect(record.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(records.map((record) => record.attributes['app.span_id'])).toEqual(['r', 'c', 'o']);
  });
});
