// Several instances on one PostgreSQL (docs/operations.md#several-instances): two real service
// processes on one fresh database, auth on, a short lease. Which instance runs an evaluation is
// read from each one's /metrics (assay_evaluations_running), so the test works whichever takes it.
// Progress is polled from the database, not over HTTP, so that polls do not count against the rate
// limit the last test exhausts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../src/shared/graphql/ids.js';
import { createGate, type FakeEndpoint, type Gate, sleep, startEndpoint } from './helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, type Requester, startEvaluation } from './helpers/evaluations.js';
import { agentTrace, agentTraceSize, hexId, otlpProtobufBody, type SyntheticSpan } from './helpers/otlp-trace.js';
import { type AssayProcess, startAssayProcess } from './helpers/process.js';
import { createTestDatabase, postgresServerUrl, type TestDatabase, type TestResponse } from './helpers/server.js';

const INIT_KEY = 'multi-instance-init-key-0123456789abcdef';
const RATE_LIMIT = 300;
const LEASE_SECONDS = 3;

const dir = mkdtempSync(join(tmpdir(), 'assay-multi-'));
let database: TestDatabase;
let endpoint: FakeEndpoint;
/** Each case's answer waits this long, or for `gate` when one is set. */
let delayMs = 0;
let gate: Gate | null = null;
const processes: AssayProcess[] = [];
let a: AssayProcess;
let b: AssayProcess;
let projectId: string;
let ingestKey: string;
let traceKey: string;

/** `server`'s requests with `key` in Authorization. */
function withKey(server: AssayProcess, key = INIT_KEY): Requester {
  return {
    request: (method, path, body, headers = {}) => server.request(method, path, body, { authorization: `Bearer ${key}`, ...headers }),
  };
}

async function ok(response: Promise<TestResponse>): Promise<any> {
  const answered = await response;
  if (answered.status >= 300) throw new Error(`answered ${answered.status}: ${answered.text}`);
  return answered.body;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** Evaluations the instance is running now, from its /metrics. */
async function running(server: AssayProcess): Promise<number> {
  const text = (await withKey(server).request('GET', '/metrics')).text;
  return Number(/^assay_evaluations_running\{kind="evaluation"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}

/** The instance that runs the one evaluation under way, and the other. */
async function runnerAndOther(): Promise<[AssayProcess, AssayProcess]> {
  const [onA] = await until(
    async () => [await running(a), await running(b)],
    ([x, y]) => x + y === 1,
    10_000,
    'evaluations running on A and B',
  );
  return onA === 1 ? [a, b] : [b, a];
}

async function progress(id: string) {
  const [row] = await database.query<{ status: string; done: number; total: number; errors: number }>(
    'SELECT "status", "done", "total", "errors" FROM "Evaluation" WHERE "id" = ?',
    [id],
  );
  return row;
}

/** An evaluation of `cases` cases (answer `answer n`, exact match) started on `server`. */
async function evaluate(server: AssayProcess, cases: number, batchSize: number): Promise<string> {
  const api = withKey(server);
  const appId = await createApp(api);
  const variant = await createEndpointVariant(api, appId, endpoint.url);
  const testset = await createTestset(
    api,
    Array.from({ length: cases }, (_, n) => ({ n, correct_answer: `answer ${n}` })),
  );
  const exact = await createConfig(api, appId, 'auto_exact_match');
  const { id } = await startEvaluation(api, {
    app_id: appId,
    variant_ids: [variant.variant_id],
    evaluators_configs: [exact.id],
    testset_id: testset.id,
    rate_limit: { batch_size: batchSize, max_retries: 0, retry_delay: 0, delay_between_batches: 0 },
  });
  return id;
}

/** OTLP/HTTP protobuf: its status. */
async function ingest(server: AssayProcess, spans: readonly SyntheticSpan[], key = ingestKey): Promise<number> {
  const response = await fetch(`${server.url}/v1/traces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-protobuf' },
    body: otlpProtobufBody(spans),
  });
  await response.arrayBuffer();
  return response.status;
}

const describeOnPostgres = describe.skipIf(!postgresServerUrl);

beforeAll(async () => {
  if (!postgresServerUrl) return;
  database = await createTestDatabase(dir);
  endpoint = await startEndpoint(async (request) => {
    if (gate) await gate.wait();
    else if (delayMs > 0) await sleep(delayMs);
    return { body: { data: `answer ${request.body.inputs.n}` } };
  });
  const env = {
    ...database.env,
    ASSAY_AUTH: 'on',
    ASSAY_INIT_API_KEY: INIT_KEY,
    ASSAY_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    EVALUATION_LEASE_SECONDS: String(LEASE_SECONDS),
    OTLP_GRPC_PORT: '0',
    // The endpoint app listens on loopback.
    ASSAY_OUTBOUND_ALLOW: '127.0.0.1',
  };
  // One after the other: the first applies the migrations.
  a = await startAssayProcess(dir, env);
  processes.push(a);
  b = await startAssayProcess(dir, env);
  processes.push(b);
  projectId = (await ok(withKey(a).request('GET', '/projects')))[0].id;
  // Keys of their own: an ingest counts its spans against its key's minute.
  ingestKey = (await ok(withKey(a).request('POST', `/projects/${projectId}/api-keys`, { name: 'ingest', scopes: ['ingest'] }))).key;
  traceKey = (await ok(withKey(a).request('POST', `/projects/${projectId}/api-keys`, { name: 'traces', scopes: ['ingest'] }))).key;
}, 60_000);

afterAll(async () => {
  for (const started of processes) await started.kill();
  await endpoint?.close();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describeOnPostgres('two instances on one PostgreSQL', () => {
  it('stream, on one instance, the progress of an evaluation the other runs, and the traces the other stores', { timeout: 30_000 }, async () => {
    gate = createGate();
    const id = await evaluate(a, 20, 5);
    const [, other] = await runnerAndOther();
    const client = createClient({ url: `${other.url}/graphql/stream`, headers: { authorization: `Bearer ${INIT_KEY}` }, retryAttempts: 0 });
    try {
      const seen: any[] = [];
      for await (const event of client.iterate({
        query: 'subscription($id: ID!) { evaluationProgress(id: $id) { status total done } }',
        variables: { id: globalId('Evaluation', id) },
      })) {
        expect(event.errors).toBeUndefined();
        seen.push(event.data!.evaluationProgress);
        // The current state came (nothing stored yet, the endpoint waits): let the cases run.
        if (seen.length === 1) gate.open();
      }
      expect(seen[0]).toMatchObject({ status: 'EVALUATION_STARTED', done: 0 });
      // Each batch's progress, made by the other instance, then the end.
      expect(seen.length).toBeGreaterThanOrEqual(3);
      expect(seen.at(-1)).toEqual({ status: 'EVALUATION_FINISHED', total: 20, done: 20 });
      const dones = seen.map((progress) => progress.done);
      expect([...dones].sort((x, y) => x - y)).toEqual(dones);

      // The trace list's live updates see spans ingested on the other instance: 300 traces in one
      // export, whose ids are more than one NOTIFY can carry (sent in parts).
      const traceIds = Array.from({ length: 300 }, (_, n) => hexId(0xab00 + n, 16));
      const spans = traceIds.flatMap((traceId) => agentTrace(traceId, { agents: 0, steps: 0, calls: 0, tools: 0 }));
      const stored: string[][] = [];
      for await (const event of client.iterate({ query: 'subscription { tracesStored }' })) {
        stored.push(event.data!.tracesStored as string[]);
        if (stored.length === 1) expect(await ingest(other === b ? a : b, spans, traceKey)).toBe(200);
        if (new Set(stored.flat()).size === traceIds.length) break;
      }
      expect(stored[0]).toEqual([]);
      expect([...new Set(stored.flat())].sort()).toEqual(traceIds);
    } finally {
      gate = null;
      client.dispose();
    }
  });

  it('loses nothing of spans sent to both instances at once, the same traces to both', { timeout: 30_000 }, async () => {
    const shape = { agents: 2, steps: 2, calls: 2, tools: 1 };
    const size = agentTraceSize(shape);
    // Traces 1–6 are split between the instances (half their spans each), 7–12 go whole to one.
    const traces = Array.from({ length: 12 }, (_, n) => agentTrace(hexId(0x1000 + n, 16), shape));
    const toA: SyntheticSpan[] = [];
    const toB: SyntheticSpan[] = [];
    traces.forEach((spans, n) => {
      if (n < 6) spans.forEach((span, i) => (i % 2 === 0 ? toA : toB).push(span));
      else (n % 2 === 0 ? toA : toB).push(...spans);
    });
    // Four exporters at once, two per instance, each sending batches of 10 spans one after another.
    const exporter = async (server: AssayProcess, spans: SyntheticSpan[]) => {
      for (let i = 0; i < spans.length; i += 10) expect(await ingest(server, spans.slice(i, i + 10))).toBe(200);
    };
    const half = (spans: SyntheticSpan[], part: number) => spans.filter((_, i) => i % 2 === part);
    await Promise.all([exporter(a, half(toA, 0)), exporter(a, half(toA, 1)), exporter(b, half(toB, 0)), exporter(b, half(toB, 1))]);

    const ids = traces.map((spans) => spans[0].traceId);
    const [{ count }] = await database.query<{ count: string }>(
      `SELECT COUNT(*) AS "count" FROM "Span" WHERE "traceId" IN (${ids.map(() => '?').join(', ')})`,
      ids,
    );
    expect(Number(count)).toBe(12 * size);
    const rows = await database.query<{ traceId: string; spanCount: number; rootSpanId: string | null; name: string | null }>(
      `SELECT "traceId", "spanCount", "rootSpanId", "name" FROM "Trace" WHERE "traceId" IN (${ids.map(() => '?').join(', ')}) ORDER BY "traceId"`,
      ids,
    );
    expect(rows).toEqual(traces.map((spans) => ({ traceId: spans[0].traceId, spanCount: size, rootSpanId: spans[0].spanId, name: spans[0].name })));
  });

  it('stop a run on one instance at a cancel sent to the other, refuse a key revoked on the other, and share the rate limit', { timeout: 30_000 }, async () => {
    gate = createGate();
    try {
      const id = await evaluate(a, 20, 5);
      const [runner, other] = await runnerAndOther();
      await endpoint.waitForRequests(endpoint.requests.length + 1).catch(() => undefined);
      await ok(withKey(other).request('POST', `/evaluations/${id}/cancel`));
      const cancelled = Date.now();
      await until(
        () => running(runner),
        (count) => count === 0,
        5_000,
        'evaluations still running on the instance that ran it',
      );
      // At once, through the event: the lease's renewal, which would notice too, comes only every LEASE_SECONDS / 3.
      expect(Date.now() - cancelled).toBeLessThan((LEASE_SECONDS * 1000) / 3);
      expect((await progress(id)).status).toBe('EVALUATION_CANCELLED');
    } finally {
      gate.open();
      gate = null;
    }

    // The listening connections are cut (a database restart, a proxy's idle timeout): each instance
    // listens again within a moment, and the events below still reach it.
    const listeners = () =>
      database.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN assay_events'`);
    const cut = (await listeners()).map((row) => row.pid);
    expect(cut).toHaveLength(2);
    await database.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid IN (${cut.map(() => '?').join(', ')})`, cut);
    await until(listeners, (rows) => rows.length === 2 && rows.every((row) => !cut.includes(row.pid)), 5_000, 'listening connections');

    // A key used on B (so B has it cached), revoked on A, is refused by B at the very next request.
    const key = await ok(withKey(a).request('POST', `/projects/${projectId}/api-keys`, { name: 'revoked', scopes: ['read'] }));
    expect((await withKey(b, key.key).request('GET', '/apps')).status).toBe(200);
    expect((await withKey(a).request('DELETE', `/api-keys/${key.id}`)).status).toBe(204);
    expect((await withKey(b, key.key).request('GET', '/apps')).status).toBe(401);
    expect((await withKey(a, key.key).request('GET', '/apps')).status).toBe(401);

    // RATE_LIMIT requests spread over both instances exhaust the key's minute on both.
    const limited = (await ok(withKey(a).request('POST', `/projects/${projectId}/api-keys`, { name: 'limited', scopes: ['read'] }))).key;
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT; i += 10) {
      const wave = Array.from({ length: Math.min(10, RATE_LIMIT - i) }, (_, n) => withKey((i + n) % 2 === 0 ? a : b, limited).request('GET', '/projects'));
      statuses.push(...(await Promise.all(wave)).map((response) => response.status));
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect((await withKey(a, limited).request('GET', '/projects')).status).toBe(429);
    expect((await withKey(b, limited).request('GET', '/projects')).status).toBe(429);
  });

  it('finish an evaluation on the other instance when the one running it is killed, one scenario per case', { timeout: 40_000 }, async () => {
    const CASES = 300;
    delayMs = 30;
    try {
      const id = await evaluate(a, CASES, 5);
      const [runner, survivor] = await runnerAndOther();
      await until(
        () => progress(id),
        (row) => row.done >= 60,
        15_000,
        'progress before the kill',
      );
      await runner.kill();
      const killedAt = await progress(id);
      expect(killedAt.done).toBeLessThan(CASES);

      const finished = await until(
        () => progress(id),
        (row) => row.status !== 'EVALUATION_STARTED',
        30_000,
        'the evaluation after the kill',
      );
      expect(finished).toEqual({ status: 'EVALUATION_FINISHED', done: CASES, total: CASES, errors: 0 });
      const positions = await database.query<{ position: number; n: string }>(
        'SELECT "position", COUNT(*) AS "n" FROM "EvaluationScenario" WHERE "evaluationId" = ? GROUP BY "position" ORDER BY "position"',
        [id],
      );
      expect(positions.map((row) => [Number(row.position), Number(row.n)])).toEqual(Array.from({ length: CASES }, (_, n) => [n, 1]));
      // The survivor answers for the run it finished.
      const status = await ok(withKey(survivor).request('GET', `/evaluations/${id}/status`));
      expect(status.progress).toEqual({ total: CASES, done: CASES, errors: 0 });
    } finally {
      delayMs = 0;
    }
  });
});
