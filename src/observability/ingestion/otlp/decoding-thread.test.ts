import { afterAll, describe, expect, it } from 'vitest';
import { OtlpBadRequest } from './decoded-span.js';
import { OtlpDecoder } from './decoding-thread.js';
import { ExportTraceServiceRequest } from './messages.js';
import { prepareOtlp } from './prepare-spans.js';

const decoder = new OtlpDecoder();
afterAll(() => decoder.close());

function body(spanCount: number): Uint8Array {
  const spans = Array.from({ length: spanCount }, (_, i) => ({
    traceId: Buffer.alloc(16, 1),
    spanId: Buffer.from((i + 1).toString(16).padStart(16, '0'), 'hex'),
    name: `span ${i}`,
    startTimeUnixNano: '1714564800000000000',
    endTimeUnixNano: '1714564800500000000',
    attributes: [
      { key: 'openinference.span.kind', value: { stringValue: 'LLM' } },
      { key: 'input.value', value: { stringValue: '{"question":"why?"}' } },
    ],
  }));
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [
      { resource: { attributes: [{ key: 'service.name', value: { stringValue: 'decoder-test' } }] }, scopeSpans: [{ scope: { name: 's' }, spans }] },
    ],
  });
  return ExportTraceServiceRequest.encode(message).finish();
}

describe('OTLP decoding thread', () => {
  it('answers mapped spans with their JSON as text, bodies in order', async () => {
    const [first, second] = await Promise.all([decoder.prepare('protobuf', body(3)), decoder.prepare('protobuf', body(1))]);
    expect(first.records).toHaveLength(3);
    expect(second.records).toHaveLength(1);
    const span = first.records[0];
    expect(span).toMatchObject({ serialized: true, spanKind: 'LLM', name: 'span 0', startTimeUnixNano: 1714564800000000000n, parentSpanId: null });
    expect(JSON.parse(span.inputs!)).toEqual({ question: 'why?' });
    expect(JSON.parse(span.attributes!)).toEqual({ 'openinference.span.kind': 'LLM', 'input.value': '{"question":"why?"}' });
    expect(JSON.parse(span.resource!)).toEqual({ attributes: { 'service.name': 'decoder-test' } });
  });

  it('hands the records over as they were made, field for field (packed as arrays for the crossing)', async () => {
    const sent = body(5);
    expect(await decoder.prepare('protobuf', sent)).toEqual(prepareOtlp('protobuf', sent));
  });

  it('parses JSON bodies there too, and refuses unreadable bodies as bad requests', async () => {
    await expect(decoder.prepare('json', Buffer.from(''))).resolves.toEqual({ records: [], rejections: [] });
    await expect(decoder.prepare('json', Buffer.from('{"resourceSpans": ['))).rejects.toThrow(OtlpBadRequest);
    await expect(decoder.prepare('json', Buffer.from('{"resourceSpans": ['))).rejects.toThrow(/not valid JSON/);
    await expect(decoder.prepare('protobuf', Buffer.from([0xff, 0xff, 0xff]))).rejects.toThrow(OtlpBadRequest);
  });

  it('fails the bodies a stopped thread held, and starts a new thread for the next', async () => {
    const held = decoder.prepare('protobuf', body(2000));
    await decoder.close();
    await expect(held).rejects.toThrow('the OTLP decoding thread stopped');
    await expect(decoder.prepare('protobuf', body(1))).resolves.toMatchObject({ rejections: [] });
  });
});
