// OTLP logs over HTTP (docs/observability.md#otlp-logs), hand-made in both encodings: GenAI events
// joined to their span as its conversation whether they come before the span, after it, split
// over requests or sent twice; other records kept as span events; records naming no span
// answered in partial_success; the span sent again keeps its join; deletion takes the records too.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../../test/helpers/server.js';
import { ExportLogsServiceRequest, ExportLogsServiceResponse, ExportTraceServiceRequest } from './messages.js';

let server: TestServer;
const MAX_BODY = 300_000;

beforeAll(async () => {
  server = await startServer({ MAX_BODY_BYTES: String(MAX_BODY) });
});

afterAll(async () => {
  await server.close();
});

const hexId = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');
const T0 = 1714564800000000000n;
const at = (ms: number) => String(T0 + BigInt(ms) * 1_000_000n);

const str = (value: string) => ({ stringValue: value });
const kv = (values: Record<string, unknown>) => ({ kvlistValue: { values: Object.entries(values).map(([key, value]) => ({ key, value })) } });

/** A GenAI chat span as OpenTelemetry's OpenAI instrumentation sends it: no content of its own. */
function chatSpan(trace: number, span: number, attributes: { key: string; value: unknown }[] = []) {
  return {
    traceId: hexId(trace, 16),
    spanId: hexId(span, 8),
    name: 'chat gpt-4o-mini',
    kind: 3,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(500),
    attributes: [
      { key: 'gen_ai.operation.name', value: str('chat') },
      { key: 'gen_ai.request.model', value: str('gpt-4o-mini') },
      { key: 'gen_ai.usage.input_tokens', value: { intValue: 1000 } },
      { key: 'gen_ai.usage.output_tokens', value: { intValue: 500 } },
      ...attributes,
    ],
  };
}

function record(trace: number | null, span: number | null, event: string | null, body: unknown, ms: number, extra: Record<string, unknown> = {}) {
  return {
    timeUnixNano: at(ms),
    observedTimeUnixNano: at(ms),
    severityNumber: 9,
    ...(trace !== null ? { traceId: hexId(trace, 16) } : {}),
    ...(span !== null ? { spanId: hexId(span, 8) } : {}),
    ...(body !== undefined ? { body } : {}),
    attributes: [...(event ? [{ key: 'event.name', value: str(event) }] : []), { key: 'gen_ai.system', value: str('openai') }],
    ...extra,
  };
}

/** The records of one chat: system and user messages, the choice, and an application log line. */
const conversation = (trace: number, span: number) => [
  record(trace, span, 'gen_ai.system.message', kv({ content: str('Be brief.') }), 1),
  record(trace, span, 'gen_ai.user.message', kv({ content: str('Capital of France?') }), 2),
  record(trace, span, 'gen_ai.choice', kv({ index: { intValue: 0 }, finish_reason: str('stop'), message: kv({ content: str('Paris.') }) }), 400),
  { ...record(trace, span, null, str('cache miss for the prompt'), 100), severityNumber: 13, severityText: 'WARN' },
];

const logsJson = (records: unknown[]) => ({
  resourceLogs: [{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: 'manual' }, logRecords: records }] }],
});
const spansJson = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'manual' }, spans }] }] });

async function post(path: string, body: Buffer | string, headers: Record<string, string>) {
  const response = await fetch(server.baseUrl + path, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}
const postJson = (path: string, value: unknown) => post(path, JSON.stringify(value), { 'content-type': 'application/json' });

/** A JSON request's records as protobuf (ids as bytes, values as protobufjs takes them). */
function logsProto(records: ReturnType<typeof record>[]): Buffer {
  const pbValue = (value: any): any =>
    value.kvlistValue ? { kvlistValue: { values: value.kvlistValue.values.map((v: any) => ({ key: v.key, value: pbValue(v.value) })) } } : value;
  const message = ExportLogsServiceRequest.fromObject({
    resourceLogs: [
      {
        scopeLogs: [
          {
            scope: { name: 'manual' },
            logRecords: records.map((r: any) => ({
              ...r,
              timeUnixNano: r.timeUnixNano,
              observedTimeUnixNano: r.observedTimeUnixNano,
              traceId: r.traceId ? Buffer.from(r.traceId, 'hex') : undefined,
              spanId: r.spanId ? Buffer.from(r.spanId, 'hex') : undefined,
              body: r.body ? pbValue(r.body) : undefined,
            })),
          },
        ],
      },
    ],
  });
  return Buffer.from(ExportLogsServiceRequest.encode(message).finish());
}

const span = async (trace: number, spanNo: number) => {
  const response = await server.graphql(
    `query($s: String!, $t: String!) { span(spanId: $s, traceId: $t) { spanKind model content { inputs outputs internals } events } }`,
    {
      s: hexId(spanNo, 8),
      t: hexId(trace, 16),
    },
  );
  expect(response.errors).toBeUndefined();
  return response.data.span;
};

const expectedInputs = {
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Capital of France?' },
  ],
};
const expectedOutputs = { messages: [{ role: 'assistant', content: 'Paris.', finish_reason: 'stop' }] };

describe('OTLP logs over HTTP', () => {
  it('joins log records sent before their span, once the span arrives', async () => {
    const logs = await postJson('/v1/logs', logsJson(conversation(1, 1)));
    expect(logs.status).toBe(200);
    expect(JSON.parse(logs.body.toString())).toEqual({});
    expect((await server.request('GET', `/observability/traces/${hexId(1, 16)}`)).status).toBe(404);

    expect((await postJson('/v1/traces', spansJson([chatSpan(1, 1)]))).status).toBe(200);
    const tree = (await server.request('GET', `/observability/traces/${hexId(1, 16)}`)).body;
    expect(tree).toMatchObject({ spankind: 'LLM', model: 'gpt-4o-mini', content: { inputs: expectedInputs, outputs: expectedOutputs } });
    expect(tree.content.internals).toMatchObject({ log_records: { count: 4, conversation: ['inputs', 'outputs'] } });
    const stored = await span(1, 1);
    // Every record is a span event too, in time order: the application's log line among them.
    expect(stored.events.map((event: any) => event.name)).toEqual(['gen_ai.system.message', 'gen_ai.user.message', 'log', 'gen_ai.choice']);
    expect(stored.events[2]).toMatchObject({ body: 'cache miss for the prompt', severity_number: 13, severity_text: 'WARN', log_record: true });
  });

  it('joins log records sent after their span (protobuf, gzip), split over requests and sent twice', async () => {
    expect((await postJson('/v1/traces', spansJson([chatSpan(2, 1)]))).status).toBe(200);
    expect((await span(2, 1)).content.inputs).toBeNull();
    const [system, user, choice, line] = conversation(2, 1);
    const headers = { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' };
    const first = await post('/otlp/v1/logs', gzipSync(logsProto([system, user])), headers);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/x-protobuf');
    expect(ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(first.body))).toEqual({});
    expect((await span(2, 1)).content).toMatchObject({ inputs: expectedInputs, outputs: null });
    // The same request again (an exporter's retry), then the rest.
    expect((await post('/otlp/v1/logs', gzipSync(logsProto([system, user])), headers)).status).toBe(200);
    expect((await post('/api/public/otel/v1/logs', logsProto([choice, line]), { 'content-type': 'application/x-protobuf' })).status).toBe(200);
    const stored = await span(2, 1);
    expect(stored.content).toMatchObject({ inputs: expectedInputs, outputs: expectedOutputs, internals: { log_records: { count: 4 } } });
    expect(stored.events).toHaveLength(4);
    expect(await server.assay.db.spanLogRecord.count({ where: { traceId: hexId(2, 16) } })).toBe(4);
  });

  it('keeps the join when the span is sent again, and the span’s own messages over the records’', async () => {
    expect((await postJson('/v1/traces', spansJson([chatSpan(2, 1)]))).status).toBe(200);
    expect((await span(2, 1)).content).toMatchObject({ inputs: expectedInputs, outputs: expectedOutputs });

    const own = [{ key: 'gen_ai.input.messages', value: str(JSON.stringify([{ role: 'user', content: 'Own question' }])) }];
    expect((await postJson('/v1/traces', spansJson([chatSpan(3, 1, own)]))).status).toBe(200);
    expect((await postJson('/v1/logs', logsJson(conversation(3, 1)))).status).toBe(200);
    const stored = await span(3, 1);
    expect(stored.content.inputs).toEqual({ messages: [{ role: 'user', content: 'Own question' }] });
    expect(stored.content.outputs).toEqual(expectedOutputs);
    expect(stored.content.internals.log_records).toEqual({ count: 4, conversation: ['outputs'] });
    expect(stored.events).toHaveLength(4);
  });

  it('joins every span with its records when both are sent at the same time', async () => {
    const traces = Array.from({ length: 12 }, (_, i) => 100 + i);
    await Promise.all(
      traces.flatMap((trace) => [
        postJson('/v1/logs', logsJson(conversation(trace, 1))).then((answer) => expect(answer.status).toBe(200)),
        postJson('/v1/traces', spansJson([chatSpan(trace, 1)])).then((answer) => expect(answer.status).toBe(200)),
      ]),
    );
    for (const trace of traces) expect((await span(trace, 1)).content, `trace ${trace}`).toMatchObject({ inputs: expectedInputs, outputs: expectedOutputs });
  });

  it('answers records that name no span in partial_success and stores the others', async () => {
    const records = [
      record(4, 1, 'gen_ai.user.message', kv({ content: str('Hi') }), 1),
      record(null, null, null, str('a log line of no span'), 2),
      record(4, null, null, str('a trace but no span'), 3),
      { ...record(4, 1, null, str('bad id'), 4), spanId: 'abc' },
    ];
    const json = await postJson('/v1/logs', logsJson(records));
    expect(json.status).toBe(200);
    const answer = JSON.parse(json.body.toString());
    expect(answer.partialSuccess.rejectedLogRecords).toBe('3');
    expect(answer.partialSuccess.errorMessage).toContain('3 log records rejected: log record #1 of resourceLogs[0].scopeLogs[0]: names no span');
    expect(answer.partialSuccess.errorMessage).toContain('log record #3 of resourceLogs[0].scopeLogs[0]: span_id must be 16 hex digits');

    const proto = await post('/v1/logs', logsProto([records[1]]), { 'content-type': 'application/x-protobuf' });
    const decoded = ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(proto.body), { longs: String });
    expect(decoded.partialSuccess.rejectedLogRecords).toBe('1');
    expect(decoded.partialSuccess.errorMessage).toContain('log record #0 of resource_logs[0].scope_logs[0]: names no span');
    expect(await server.assay.db.spanLogRecord.count({ where: { traceId: hexId(4, 16) } })).toBe(1);
  });

  it('answers 400, 413 and 415 as the traces paths do', async () => {
    const bad = await post('/v1/logs', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), { 'content-type': 'application/x-protobuf' });
    expect(bad.status).toBe(400);
    expect((await post('/v1/logs', '{"resourceLogs": 1}', { 'content-type': 'application/json' })).status).toBe(400);
    const big = logsJson([record(5, 1, null, str('x'.repeat(MAX_BODY)), 1)]);
    expect((await postJson('/v1/logs', big)).status).toBe(413);
    expect((await post('/v1/logs', gzipSync(JSON.stringify(big)), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status).toBe(413);
    expect((await post('/v1/logs', 'hello', { 'content-type': 'text/plain' })).status).toBe(415);
  });

  it('deletes the log records with their trace, those of spans that never arrived too', async () => {
    expect((await postJson('/v1/logs', logsJson([...conversation(6, 1), record(6, 2, null, str('span 2 never comes'), 5)]))).status).toBe(200);
    expect((await postJson('/v1/traces', spansJson([chatSpan(6, 1)]))).status).toBe(200);
    expect(await server.assay.db.spanLogRecord.count({ where: { traceId: hexId(6, 16) } })).toBe(5);
    expect((await server.request('DELETE', `/observability/traces/${hexId(6, 16)}`)).status).toBe(204);
    expect(await server.assay.db.spanLogRecord.count({ where: { traceId: hexId(6, 16) } })).toBe(0);
  });

  it("deletes a user's spans with their records, and keeps the trace's other spans' records", async () => {
    const user = [{ key: 'user.id', value: str('u-logs') }];
    expect((await postJson('/v1/traces', spansJson([chatSpan(8, 1, user), chatSpan(8, 2)]))).status).toBe(200);
    expect((await postJson('/v1/logs', logsJson([...conversation(8, 1), ...conversation(8, 2)]))).status).toBe(200);
    expect((await server.request('DELETE', '/observability/users/u-logs')).body).toEqual({ spans: 1, traces: 0 });
    const left = await server.assay.db.spanLogRecord.findMany({ where: { traceId: hexId(8, 16) }, select: { spanId: true } });
    expect(new Set(left.map((row) => row.spanId))).toEqual(new Set([hexId(2, 8)]));
    expect(left).toHaveLength(4);
  });

  it('reads a trace exported to /v1/traces as protobuf beside its logs', async () => {
    const message = ExportTraceServiceRequest.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  ...chatSpan(7, 1),
                  traceId: Buffer.from(hexId(7, 16), 'hex'),
                  spanId: Buffer.from(hexId(7, 8), 'hex'),
                  attributes: [{ key: 'gen_ai.operation.name', value: str('chat') }],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(
      (await post('/v1/traces', Buffer.from(ExportTraceServiceRequest.encode(message).finish()), { 'content-type': 'application/x-protobuf' })).status,
    ).toBe(200);
    expect((await postJson('/v1/logs', logsJson(conversation(7, 7)))).status).toBe(200);
    expect((await span(7, 7)).content).toMatchObject({ inputs: expectedInputs, outputs: expectedOutputs });
  });
});
