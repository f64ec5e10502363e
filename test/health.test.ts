// /healthz, /readyz and /metrics on a real server: readiness fails for a full write queue and a
// closed database, and the metrics move by exactly what real traffic did (REST, OTLP over HTTP and
// gRPC, the legacy ingest, refused spans, automatic and human evaluation runs).
import { afterAll, describe, expect, it } from 'vitest';
import { createGate, type FakeEndpoint, freePort, startEndpoint } from './helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, startEvaluation, waitForStatus } from './helpers/evaluations.js';
import { createHumanEvaluation, waitForHumanStatus } from './helpers/human-evaluations.js';
import { hexId } from './helpers/otlp-trace.js';
import { useTestServer } from './helpers/server.js';
import { testTracer } from './helpers/otel.js';
import { legacySpan } from './helpers/spans.js';

let grpcPort: number;
const server = useTestServer(async () => {
  grpcPort = await freePort();
  return { OTLP_GRPC_PORT: String(grpcPort) };
});
const endpoints: FakeEndpoint[] = [];

afterAll(async () => {
  for (const endpoint of endpoints) await endpoint.close();
});

/** One scrape: every sample by `name{label="value",…}` with labels sorted by name. */
type Samples = Map<string, number>;

function sampleKey(name: string, labels: Record<string, string | number> = {}): string {
  const pairs = Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, value]) => `${label}="${value}"`);
  return pairs.length ? `${name}{${pairs.join(',')}}` : name;
}

/** Parses the text exposition format: `# HELP`/`# TYPE` comments, then `name{labels} value` lines. */
function parseExposition(text: string): { samples: Samples; types: Map<string, string> } {
  const samples: Samples = new Map();
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1], type[2]);
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2]!;
    samples.set(sampleKey(match[1], labels), Number(match[3]));
  }
  return { samples, types };
}

async function scrape(path = '/metrics'): Promise<Samples> {
  const response = await fetch(server.baseUrl + path);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await response.text()).samples;
}

const value = (samples: Samples, name: string, labels?: Record<string, string | number>) => samples.get(sampleKey(name, labels)) ?? 0;

/** How much each listed sample grew between two scrapes. */
function moved(before: Samples, after: Samples, name: string, labels?: Record<string, string | number>): number {
  return value(after, name, labels) - value(before, name, labels);
}

function otlpJson(traceId: string, spans: { spanId: string; traceId?: string }[]) {
  return JSON.stringify({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: spans.map((span) => ({
              traceId: span.traceId ?? traceId,
              spanId: span.spanId,
              name: 'metrics-test',
              startTimeUnixNano: '1714564800000000000',
              endTimeUnixNano: '1714564800000000001',
            })),
          },
        ],
      },
    ],
  });
}

const postOtlp = (body: string) => fetch(`${server.baseUrl}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('health and readiness', () => {
  it('answers /healthz with 200 {"status":"ok"}, at the root and under /api', async () => {
    for (const path of ['/healthz', '/api/healthz']) {
      const response = await server.request('GET', path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
    }
  });

  it('answers /readyz with 200 when the database is up to date and the queue has room', async () => {
    const response = await server.request('GET', '/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready' });
  });

  it('answers /readyz 503 naming the full write queue, and 200 again once it drains', async () => {
    const queue = server.assay.services.spanQueue;
    const before = await scrape();
    queue.limits = { ...queue.limits, maxQueuedSpans: 3 };
    queue.pause();
    try {
      // Writes held: the first request waits in the queue (3 spans: the limit), the next is refused.
      const waiting = postOtlp(otlpJson(hexId(7001, 16), [{ spanId: hexId(1, 8) }, { spanId: hexId(2, 8) }, { spanId: hexId(3, 8) }]));
      await expect.poll(() => queue.waitingSpans, { timeout: 10_000 }).toBe(3);
      const full = await server.request('GET', '/readyz');
      expect(full.status).toBe(503);
      expect(full.body).toEqual({ detail: 'The span write queue is full (3 spans waiting, limit 3)' });
      const mid = await scrape();
      expect(value(mid, 'assay_write_queue_spans')).toBe(3);
      expect(value(mid, 'assay_write_queue_limit_spans')).toBe(3);

      const refused = await postOtlp(otlpJson(hexId(7002, 16), [{ spanId: hexId(1, 8) }, { spanId: hexId(2, 8) }]));
      expect(refused.status).toBe(503);
      queue.resume();
      expect((await waiting).status).toBe(200);
      const after = await scrape();
      expect(moved(before, after, 'assay_spans_rejected_total', { transport: 'otlp_http', reason: 'overloaded' })).toBe(2);
      expect(moved(before, after, 'assay_spans_ingested_total', { transport: 'otlp_http' })).toBe(3);
      expect(value(after, 'assay_write_queue_spans')).toBe(0);
      expect(moved(before, after, 'assay_http_request_duration_seconds_count', { method: 'GET', route: '/readyz', status: 503 })).toBe(1);
      expect((await server.request('GET', '/readyz')).status).toBe(200);
    } finally {
      queue.resume();
      queue.limits = { ...queue.limits, maxQueuedSpans: 100_000 };
    }
  });
});

describe('metrics', () => {
  it('exposes the process metrics and every series of the service at 0 before traffic', async () => {
    const response = await fetch(`${server.baseUrl}/api/metrics`);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const { samples, types } = parseExposition(await response.text());
    expect(types.get('assay_http_request_duration_seconds')).toBe('histogram');
    expect(types.get('assay_spans_ingested_total')).toBe('counter');
    expect(types.get('assay_write_queue_spans')).toBe('gauge');
    expect(types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(value(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(samples.has(sampleKey('assay_spans_ingested_total', { transport: 'otlp_grpc' }))).toBe(true);
    expect(samples.has(sampleKey('assay_evaluation_cases_total', { kind: 'human-evaluation', outcome: 'errored' }))).toBe(true);
    expect(samples.has(sampleKey('assay_evaluations_running', { kind: 'evaluation' }))).toBe(true);
  });

  it('counts HTTP requests by route pattern and status, with one label for unknown routes', async () => {
    const before = await scrape();
    expect((await server.request('GET', '/apps/no-such-app')).status).toBe(404);
    expect((await server.request('GET', '/api/apps/another-one')).status).toBe(404);
    expect((await server.request('GET', '/apps')).status).toBe(200);
    expect((await server.request('GET', '/no/such/route/1')).status).toBe(404);
    expect((await server.request('POST', '/no/such/route/2', {})).status).toBe(404);
    const after = await scrape();
    expect(moved(before, after, 'assay_http_request_duration_seconds_count', { method: 'GET', route: '/apps/:app_id', status: 404 })).toBe(2);
    expect(moved(before, after, 'assay_http_request_duration_seconds_count', { method: 'GET', route: '/apps', status: 200 })).toBe(1);
    expect(moved(before, after, 'assay_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: 404 })).toBe(1);
    expect(moved(before, after, 'assay_http_request_duration_seconds_count', { method: 'POST', route: 'unmatched', status: 404 })).toBe(1);
    // The raw URLs never become labels.
    expect([...after.keys()].some((key) => key.includes('no-such-app') || key.includes('/no/such'))).toBe(false);
    // The scrape before this one was counted too, and its latency went into the buckets.
    expect(moved(before, after, 'assay_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status: 200 })).toBe(1);
    expect(value(after, 'assay_http_request_duration_seconds_bucket', { le: '+Inf', method: 'GET', route: '/apps', status: 200 })).toBeGreaterThanOrEqual(1);
    expect(moved(before, after, 'assay_http_request_duration_seconds_sum', { method: 'GET', route: '/apps', status: 200 })).toBeGreaterThan(0);
  });

  it('counts spans ingested and rejected over OTLP/HTTP, OTLP/gRPC and the legacy ingest', async () => {
    const before = await scrape();
    // OTLP/HTTP with the SDK exporter: 3 spans.
    const http = testTracer('proto', `${server.baseUrl}/v1/traces`);
    for (let i = 0; i < 3; i++) http.tracer.startSpan(`http-${i}`).end();
    await http.flush();
    await http.shutdown();
    // OTLP/gRPC: 2 spans.
    const grpc = testTracer('grpc', `http://127.0.0.1:${grpcPort}`);
    for (let i = 0; i < 2; i++) grpc.tracer.startSpan(`grpc-${i}`).end();
    await grpc.flush();
    await grpc.shutdown();
    // OTLP/HTTP JSON with 1 valid span and 2 rejected ones (partial success).
    const partial = await postOtlp(otlpJson(hexId(7100, 16), [{ spanId: hexId(1, 8) }, { spanId: hexId(2, 8), traceId: 'not-hex' }, { spanId: hexId(0, 8) }]));
    expect(partial.status).toBe(200);
    expect((await partial.json()).partialSuccess.rejectedSpans).toBe('2');
    // Legacy: 2 spans stored, then a body with an invalid span refused whole (3 spans).
    const stored = await server.request('POST', '/observability/trace', {
      trace: 'legacy-metrics',
      spans: [legacySpan('a', null, 0, 2), legacySpan('b', 'a', 1, 2)],
    });
    expect(stored.status).toBe(200);
    const invalid = await server.request('POST', '/observability/trace', {
      trace: 'legacy-metrics-bad',
      spans: [legacySpan('a', null, 0, 2), legacySpan('b', 'a', 1, 2), { ...legacySpan('c', 'a', 1, 2), start_time: 'yesterday' }],
    });
    expect(invalid.status).toBe(422);
    const after = await scrape();
    expect(moved(before, after, 'assay_spans_ingested_total', { transport: 'otlp_http' })).toBe(4);
    expect(moved(before, after, 'assay_spans_ingested_total', { transport: 'otlp_grpc' })).toBe(2);
    expect(moved(before, after, 'assay_spans_ingested_total', { transport: 'legacy' })).toBe(2);
    expect(moved(before, after, 'assay_spans_rejected_total', { transport: 'otlp_http', reason: 'invalid' })).toBe(2);
    expect(moved(before, after, 'assay_spans_rejected_total', { transport: 'otlp_grpc', reason: 'invalid' })).toBe(0);
    expect(moved(before, after, 'assay_spans_rejected_total', { transport: 'legacy', reason: 'invalid' })).toBe(3);
    expect(moved(before, after, 'assay_http_request_duration_seconds_count', { method: 'POST', route: '/v1/traces', status: 200 })).toBe(2);
    expect(moved(before, after, 'assay_http_request_duration_seconds_count', { method: 'POST', route: '/observability/trace', status: 422 })).toBe(1);
  });

  it('counts evaluation cases done and errored, and the runs under way', async () => {
    const gate = createGate();
    const user = await startEndpoint(async (request) => {
      await gate.wait();
      const q = request.body.inputs.q;
      return q === 'c' ? { status: 500, body: 'down' } : { body: { data: q === 'a' ? 'x' : 'no' } };
    });
    endpoints.push(user);
    const appId = await createApp(server);
    const variant = await createEndpointVariant(server, appId, user.url);
    const testset = await createTestset(server, [
      { q: 'a', correct_answer: 'x' },
      { q: 'b', correct_answer: 'y' },
      { q: 'c', correct_answer: 'z' },
    ]);
    const exact = await createConfig(server, appId, 'auto_exact_match');
    const before = await scrape();
    const { id } = await startEvaluation(server, { app_id: appId, variant_ids: [variant.variant_id], evaluators_configs: [exact.id], testset_id: testset.id });
    await user.waitForRequests(3);
    const during = await scrape();
    expect(value(during, 'assay_evaluations_running', { kind: 'evaluation' })).toBe(1);
    gate.open();
    expect((await waitForStatus(server, id)).progress).toEqual({ total: 3, done: 3, errors: 1 });
    // A wrong answer is a score, not an error: only the case whose call failed is errored.
    await expect.poll(async () => value(await scrape(), 'assay_evaluations_running', { kind: 'evaluation' }), { timeout: 10_000 }).toBe(0);
    let after = await scrape();
    expect(moved(before, after, 'assay_evaluation_cases_total', { kind: 'evaluation', outcome: 'ok' })).toBe(2);
    expect(moved(before, after, 'assay_evaluation_cases_total', { kind: 'evaluation', outcome: 'errored' })).toBe(1);

    // A human evaluation's generated outputs count as its cases.
    const human = await createHumanEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluation_type: 'single_model_test',
      inputs: ['q'],
      testset_id: (await createTestset(server, [{ q: 'a' }, { q: 'b' }])).id,
    });
    await waitForHumanStatus(server, human.id);
    const humanAfter = await scrape();
    expect(moved(after, humanAfter, 'assay_evaluation_cases_total', { kind: 'human-evaluation', outcome: 'ok' })).toBe(2);
    expect(moved(after, humanAfter, 'assay_evaluation_cases_total', { kind: 'human-evaluation', outcome: 'errored' })).toBe(0);
    after = humanAfter;
    expect(moved(before, after, 'assay_evaluation_cases_total', { kind: 'evaluation', outcome: 'ok' })).toBe(2);
  });
});

describe('readiness and migrations', () => {
  it('answers /readyz 503 naming a migration the database lacks, and 200 once it is recorded again', async () => {
    const { db } = server.assay;
    const [latest] = await db.$queryRawUnsafe<{ migration_name: string }[]>(
      'SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1',
    );
    // Marked rolled back, as `prisma migrate resolve --rolled-back` would: no longer counted as applied.
    const mark = (rolledBack: boolean) =>
      db.$executeRawUnsafe(
        `UPDATE "_prisma_migrations" SET rolled_back_at = ${rolledBack ? 'finished_at' : 'NULL'} WHERE migration_name = '${latest.migration_name}'`,
      );
    await mark(true);
    try {
      const response = await server.request('GET', '/readyz');
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ detail: `1 database migration(s) not applied: ${latest.migration_name}` });
    } finally {
      await mark(false);
    }
    expect((await server.request('GET', '/readyz')).status).toBe(200);
  });
});

// Last: it closes the database under the running server.
describe('readiness without a database', () => {
  it('answers /readyz 503 naming the unreachable database, while /healthz and /metrics still answer', async () => {
    // Prisma reconnects after $disconnect(); closing the connection (ending the pool) under it is
    // what a lost database looks like.
    const { database } = server.assay;
    if (database.provider === 'sqlite') database.connection().close();
    else await database.pool.end();
    const response = await server.request('GET', '/readyz');
    expect(response.status).toBe(503);
    expect(response.body.detail).toMatch(/^The database is unreachable: .+/);
    expect((await server.request('GET', '/healthz')).status).toBe(200);
    const samples = await scrape();
    expect(value(samples, 'assay_http_request_duration_seconds_count', { method: 'GET', route: '/readyz', status: 503 })).toBeGreaterThanOrEqual(2);
  });
});
