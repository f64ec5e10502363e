// The field-by-field protobuf decoder against bodies protobufjs encodes from the OTLP descriptor
// (messages.ts): every AnyValue kind, events, links, status, flags, the deprecated
// instrumentation_library_spans, unknown fields, spans it must reject, and bodies it cannot read.
import { describe, expect, it } from 'vitest';
import { OtlpBadRequest } from './decoded-span.js';
import { ExportTraceServiceRequest } from './messages.js';
import { decodeProtobuf } from './protobuf-decoding.js';

const id = (hex: string) => Buffer.from(hex, 'hex');
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const encode = (message: object) => Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(message)).finish());

const baseSpan = (spanId: string, extra: object = {}) => ({
  traceId: id(TRACE),
  spanId: id(spanId),
  name: `span ${spanId}`,
  startTimeUnixNano: '1714564800000000000',
  endTimeUnixNano: '1714564801000000000',
  ...extra,
});

const nested = (depth: number): object => (depth === 0 ? { stringValue: 'leaf' } : { arrayValue: { values: [nested(depth - 1)] } });

describe('decodeProtobuf', () => {
  it('reads every value kind, events, links, status and flags into the plain form', () => {
    const body = encode({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }], droppedAttributesCount: 2 },
          schemaUrl: 'https://schema/1',
          scopeSpans: [
            {
              scope: { name: 'lib', version: '1.0', attributes: [{ key: 'a', value: { boolValue: true } }] },
              schemaUrl: 'https://schema/2',
              spans: [
                baseSpan('b7ad6b7169203331', {
                  parentSpanId: id('0000000000000000'),
                  traceState: 'k=v',
                  flags: 257,
                  kind: 3,
                  attributes: [
                    { key: 's', value: { stringValue: 'text' } },
                    { key: 'empty', value: { stringValue: '' } },
                    { key: 'b', value: { boolValue: false } },
                    { key: 'small', value: { intValue: -5 } },
                    { key: 'big', value: { intValue: '9007199254740993' } },
                    { key: 'd', value: { doubleValue: 1.5 } },
                    { key: 'nan', value: { doubleValue: NaN } },
                    { key: 'bytes', value: { bytesValue: Buffer.from('hi') } },
                    { key: 'list', value: { arrayValue: { values: [{ intValue: 1 }, { stringValue: 'x' }, {}] } } },
                    { key: 'map', value: { kvlistValue: { values: [{ key: 'inner', value: { doubleValue: -Infinity } }] } } },
                    { key: 'unset', value: {} },
                  ],
                  droppedAttributesCount: 1,
                  events: [
                    { timeUnixNano: '1714564800500000000', name: 'exception', attributes: [{ key: 'exception.message', value: { stringValue: 'boom' } }] },
                  ],
                  droppedEventsCount: 3,
                  links: [{ traceId: id(TRACE), spanId: id('00f067aa0ba902b7'), traceState: 't', flags: 1, attributes: [] }],
                  droppedLinksCount: 4,
                  status: { code: 2, message: 'failed' },
                }),
              ],
            },
          ],
        },
      ],
    });
    const [group] = decodeProtobuf(body);
    expect(group.resource).toEqual({ attributes: { 'service.name': 'svc' }, droppedAttributesCount: 2, schemaUrl: 'https://schema/1' });
    expect(group.scope).toEqual({ name: 'lib', version: '1.0', attributes: { a: true }, droppedAttributesCount: 0, schemaUrl: 'https://schema/2' });
    expect(group.spans).toEqual([
      {
        span: {
          traceId: TRACE,
          spanId: 'b7ad6b7169203331',
          parentSpanId: null,
          traceState: 'k=v',
          flags: 257,
          name: 'span b7ad6b7169203331',
          kind: 3,
          startTimeUnixNano: 1_714_564_800_000_000_000n,
          endTimeUnixNano: 1_714_564_801_000_000_000n,
          attributes: {
            s: 'text',
            empty: '',
            b: false,
            small: -5,
            big: '9007199254740993',
            d: 1.5,
            nan: 'NaN',
            bytes: Buffer.from('hi').toString('base64'),
            list: [1, 'x', null],
            map: { inner: '-Infinity' },
            unset: null,
          },
          droppedAttributesCount: 1,
          events: [{ name: 'exception', timeUnixNano: 1_714_564_800_500_000_000n, attributes: { 'exception.message': 'boom' }, droppedAttributesCount: 0 }],
          droppedEventsCount: 3,
          links: [{ traceId: TRACE, spanId: '00f067aa0ba902b7', traceState: 't', flags: 1, attributes: {}, droppedAttributesCount: 0 }],
          droppedLinksCount: 4,
          statusCode: 2,
          statusMessage: 'failed',
        },
      },
    ]);
  });

  it('reads the deprecated instrumentation_library_spans after scope_spans, and skips unknown fields', () => {
    const body = Buffer.concat([
      encode({
        resourceSpans: [
          {
            scopeSpans: [{ scope: { name: 'new' }, spans: [baseSpan('0000000000000001')] }],
            instrumentationLibrarySpans: [{ scope: { name: 'old' }, spans: [baseSpan('0000000000000002')] }],
          },
        ],
      }),
      // field 99 (varint 7) and field 98 (a length-delimited "xy"), unknown to OTLP
      Buffer.from([0x98, 0x06, 0x07, 0x92, 0x06, 0x02, 0x78, 0x79]),
    ]);
    const groups = decodeProtobuf(body);
    expect(groups.map((group) => group.scope.name)).toEqual(['new', 'old']);
    expect(groups.flatMap((group) => group.spans.map((decoded) => ('span' in decoded ? decoded.span.spanId : null)))).toEqual([
      '0000000000000001',
      '0000000000000002',
    ]);
  });

  it('rejects a span with bad ids, times or too deep a value, and keeps the others', () => {
    const body = encode({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                baseSpan('0000000000000001'),
                { ...baseSpan('0000000000000002'), spanId: id('0000') },
                baseSpan('0000000000000003', { parentSpanId: id('01') }),
                baseSpan('0000000000000004', { endTimeUnixNano: '1' }),
                baseSpan('0000000000000005', { attributes: [{ key: 'deep', value: nested(40) }] }),
              ],
            },
          ],
        },
      ],
    });
    const [group] = decodeProtobuf(body);
    expect(group.spans.map((decoded) => ('span' in decoded ? decoded.span.spanId : decoded.rejected))).toEqual([
      '0000000000000001',
      { ref: 'span 0000 of trace 0af7651916cd43dd8448eb211c80319c', reason: 'span_id must be 8 bytes, not all zero' },
      { ref: `span 0000000000000003 of trace ${TRACE}`, reason: 'parent_span_id must be 8 bytes' },
      { ref: `span 0000000000000004 of trace ${TRACE}`, reason: 'end_time_unix_nano is before start_time_unix_nano' },
      { ref: `span 0000000000000005 of trace ${TRACE}`, reason: 'an attribute value is nested deeper than 32 levels' },
    ]);
  });

  it('refuses a body it cannot read, and a resource nested too deep, as a bad request', () => {
    const body = encode({ resourceSpans: [{ scopeSpans: [{ spans: [baseSpan('0000000000000001')] }] }] });
    expect(() => decodeProtobuf(body.subarray(0, body.length - 5))).toThrow(OtlpBadRequest);
    expect(() => decodeProtobuf(body.subarray(0, body.length - 5))).toThrow(/not an OTLP ExportTraceServiceRequest in protobuf/);
    const deep = encode({ resourceSpans: [{ resource: { attributes: [{ key: 'deep', value: nested(40) }] } }] });
    expect(() => decodeProtobuf(deep)).toThrow('resource_spans[0].resource: an attribute value is nested deeper than 32 levels');
    expect(decodeProtobuf(new Uint8Array(0))).toEqual([]);
  });

  it('answers any damaged body with spans or a bad request, never another error', () => {
    const body = encode({
      resourceSpans: [{ scopeSpans: [{ spans: [baseSpan('0000000000000001', { attributes: [{ key: 'k', value: nested(3) }], events: [{ name: 'e' }] })] }] }],
    });
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 2_000; round++) {
      const damaged = Buffer.from(body);
      for (let flips = 1 + Math.floor(random() * 4); flips > 0; flips--) damaged[Math.floor(random() * damaged.length)] = Math.floor(random() * 256);
      try {
        decodeProtobuf(damaged.subarray(0, Math.floor(damaged.length * (0.5 + random() / 2))));
      } catch (error) {
        expect(error).toBeInstanceOf(OtlpBadRequest);
      }
    }
  });
});
