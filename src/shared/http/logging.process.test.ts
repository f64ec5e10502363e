// The log an operator reads (docs/logging.md), from the real service as a child process: one JSON
// line per request, one start line with every address served, the stop lines, GraphQL request
// faults as warnings, and no secret in any line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssayProcess, type AssayProcess } from '../../../test/helpers/process.js';
import { freePort } from '../../../test/helpers/endpoints.js';
import { globalId } from '../graphql/ids.js';

const SECRET = 'sk-live-0123456789abcdef';
const SECRET_KEY = 'ab'.repeat(32);

type Line = Record<string, any>;

const dir = mkdtempSync(join(tmpdir(), 'assay-logging-'));
let service: AssayProcess;
let grpcPort: number;
let exitCode: number | null;
/** Each request made, with the status it got and the lines logged since the previous one. */
const made: { method: string; path: string; status: number }[] = [];
const docsServed: Record<string, boolean> = {};

beforeAll(async () => {
  grpcPort = await freePort();
  service = await startAssayProcess(dir, {
    DATABASE_URL: `file:${join(dir, 'assay.db')}`,
    OTLP_GRPC_PORT: String(grpcPort),
    ASSAY_SECRET_KEY: SECRET_KEY,
    OPENAI_API_KEY: SECRET,
  });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await service.request(method, path, body, headers);
    made.push({ method, path, status: response.status });
    return response;
  };
  expect((await call('POST', '/api/apps', { app_name: '', lm_providers_keys: { OPENAI_API_KEY: SECRET } }, { authorization: `Bearer ${SECRET}` })).status).toBe(
    422,
  );
  const app = await call('POST', '/apps', { app_name: 'logged' }, { authorization: `Bearer ${SECRET}`, 'x-api-key': SECRET });
  expect(app.status).toBe(200);
  expect((await call('GET', `/apps/${app.body.app_id}?x=1`)).status).toBe(200);
  expect((await call('GET', '/no/such/path')).status).toBe(404);
  expect((await call('POST', '/graphql', { query: '{ nope }' })).body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  expect((await call('POST', '/graphql', { query: `{ app(id: "${globalId('App', 'missing')}") { id } }` })).body.errors[0].extensions.code).toBe('NOT_FOUND');
  expect((await call('POST', '/graphql', { query: '{ apps { edges { node { name } } } }' })).body.data.apps.edges).toHaveLength(1);
  // Served or not depends on what this build registers: the start line must say the same.
  for (const path of ['/docs', '/openapi.json', '/healthz', '/readyz', '/metrics']) docsServed[path] = (await call('GET', path)).status !== 404;
  exitCode = await service.stop();
}, 60_000);

afterAll(async () => {
  await service?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const requestLines = () => service.lines.filter((line) => line.reqId !== undefined) as Line[];

describe('the log of a running service', () => {
  it('writes exactly one JSON line per request, with method, route, url, status, time and request id', () => {
    const lines = requestLines();
    expect(lines).toHaveLength(made.length);
    expect(new Set(lines.map((line) => line.reqId)).size).toBe(made.length);
    expect(service.messages).not.toContain('incoming request');
    expect(service.messages).not.toContain('request completed');
    lines.forEach((line, i) => {
      expect(line).toMatchObject({ method: made[i].method, url: made[i].path, status: made[i].status });
      expect(typeof line.ms).toBe('number');
      expect(line.ms).toBeGreaterThanOrEqual(0);
      expect(typeof line.time).toBe('string');
      expect(line.msg).toBe(`${line.method} ${line.url} ${line.status} ${line.ms} ms`);
    });
    expect(lines[0]).toMatchObject({ route: '/apps', url: '/api/apps', status: 422, level: 'warn' });
    expect(lines[1]).toMatchObject({ route: '/apps', status: 200, level: 'info' });
    expect(lines[2]).toMatchObject({ route: '/apps/:app_id', level: 'info' });
    expect(lines[3]).toMatchObject({ route: null, url: '/no/such/path', status: 404, level: 'warn' });
  });

  it('logs a GraphQL request fault (a bad query, an unknown id) as a warning with its code, not an error', () => {
    const graphql = requestLines().filter((line) => line.url === '/graphql');
    expect(graphql.map((line) => [line.level, line.graphql_errors])).toEqual([
      ['warn', ['GRAPHQL_VALIDATION_FAILED']],
      ['warn', ['NOT_FOUND']],
      ['info', undefined],
    ]);
    expect(service.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('lists every address served in one start line', () => {
    const starts = service.messages.filter((msg) => msg.startsWith('Server listening at'));
    expect(starts).toHaveLength(1);
    const [start] = starts as [string];
    const origin = service.url;
    expect(start).toContain(`${origin} (REST`);
    expect(start).toContain(`GraphQL and GraphiQL ${origin}/graphql`);
    expect(start).toContain(`GraphQL over SSE (graphql-sse) ${origin}/graphql/stream`);
    expect(start).toContain(`${origin}/v1/traces`);
    expect(start).toContain(`${origin}/api/public/otel/v1/traces`);
    expect(start).toContain(`OTLP/gRPC 127.0.0.1:${grpcPort}`);
    for (const [path, served] of Object.entries(docsServed)) expect(start.includes(`${origin}${path}`), path).toBe(served);
  });

  it('says why it stops, and that it has stopped, last', () => {
    expect(exitCode).toBe(0);
    const stopping = service.lines.find((line) => line.signal !== undefined);
    expect(stopping).toMatchObject({ level: 'info', signal: 'SIGTERM', msg: expect.stringContaining('stopping (SIGTERM)') });
    expect(service.messages.at(-1)).toBe('stopped');
  });

  it('never logs a secret: no header, no body, no provider or secret key', () => {
    const all = service.lines.map((line) => JSON.stringify(line)).join('\n');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(SECRET_KEY);
    expect(all.toLowerCase()).not.toContain('authorization');
    expect(all).not.toContain('lm_providers_keys');
    expect(service.stderr()).toBe('');
  });
});
