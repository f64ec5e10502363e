// Where a session id comes from (docs/sessions.md#session-ids): each attribute the instrumentation
// libraries write, sent through the real OTLP JSON exporter, on the root span, on the resource, and
// on a span below a root that names none (the AI SDK inside an app's own span).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testTracer } from '../../../test/helpers/otel.js';
import { startServer, type TestServer } from '../../../test/helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ OTLP_GRPC_PORT: '0' });
});

afterAll(async () => {
  await server.close();
});

const T = Date.parse('2024-05-01T12:00:00Z');
const ms = (offset: number) => new Date(T + offset);

const attributes = ['session.id', 'langfuse.session.id', 'ag.session.id', 'gen_ai.conversation.id', 'ai.telemetry.metadata.sessionId'];

describe('session ids', () => {
  it('reads each attribute, on the root, on the resource, or below a root that names none', async () => {
    const otel = testTracer('json', `${server.baseUrl}/otlp/v1/traces`);
    attributes.forEach((key, i) => {
      const root = otel.tracer.startSpan(`turn ${i}`, { startTime: ms(i * 1000), attributes: { [key]: `by-${key}` } });
      root.end(ms(i * 1000 + 500));
    });
    // An app's own span around an AI SDK call: only the call names the session.
    const app = otel.tracer.startSpan('POST /chat', { startTime: ms(10_000) });
    const call = otel.tracer.startSpan(
      'ai.generateText',
      { startTime: ms(10_100), attributes: { 'ai.telemetry.metadata.sessionId': 'nested', 'ai.prompt': '{"prompt":"Hi"}' } },
      otel.under(app),
    );
    call.end(ms(10_400));
    app.end(ms(10_500));
    await otel.flush();
    await otel.shutdown();

    const resourced = testTracer('json', `${server.baseUrl}/otlp/v1/traces`, { 'session.id': 'from-resource' });
    resourced.tracer.startSpan('turn', { startTime: ms(20_000) }).end(ms(20_500));
    await resourced.flush();
    await resourced.shutdown();

    const response = await server.request('GET', '/sessions');
    expect(response.status, response.text).toBe(200);
    expect(response.body.sessions.map((session: { session_id: string; trace_count: number }) => [session.session_id, session.trace_count])).toEqual([
      ['from-resource', 1],
      ['nested', 1],
      ...attributes.map((key) => [`by-${key}`, 1]).reverse(),
    ]);
    const nested = await server.request('GET', '/sessions/nested');
    expect(nested.body.turns.map((turn: { name: string; session_id: string }) => [turn.name, turn.session_id])).toEqual([['POST /chat', 'nested']]);
  });
});
