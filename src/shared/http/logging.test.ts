// The log's format and levels on a real Fastify with the service's error handling; the service's
// own log, as a child process, is src/shared/http/logging.process.test.ts.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { NotFoundError } from '../errors.js';
import { registerErrorHandling } from './errors.js';
import { logFormat, loggingOptions, startLine } from './logging.js';

async function logOf(format: 'json' | 'pretty', requests: string[]): Promise<string[]> {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const app = Fastify(loggingOptions({ LOG_LEVEL: 'info', LOG_FORMAT: format }, destination));
  registerErrorHandling(app);
  app.get('/ok/:id', () => ({ ok: true }));
  app.get('/missing', () => {
    throw new NotFoundError('App', 'x');
  });
  app.get('/boom', () => {
    throw new Error('disk on fire');
  });
  for (const url of requests) await app.inject({ method: 'GET', url, headers: { authorization: 'Bearer sk-secret' } });
  await app.close();
  return chunks.join('').split('\n').filter(Boolean);
}

describe('the log format', () => {
  it('is JSON lines by default off a terminal, pretty on one, and LOG_FORMAT overrides both', () => {
    expect(logFormat({ LOG_FORMAT: undefined }, false)).toBe('json');
    expect(logFormat({ LOG_FORMAT: undefined }, true)).toBe('pretty');
    expect(logFormat({ LOG_FORMAT: 'json' }, true)).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('logs a 5xx at error (with the error on its own line), a 4xx as a warning, the rest at info', async () => {
    const lines = (await logOf('json', ['/ok/1?q=2', '/missing', '/nowhere', '/boom'])).map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.level, line.msg.replace(/ [\d.]+ ms$/, '')])).toEqual([
      ['info', 'GET /ok/1?q=2 200'],
      ['warn', 'GET /missing 404'],
      ['warn', 'GET /nowhere 404'],
      ['error', 'unhandled error'],
      ['error', 'GET /boom 500'],
    ]);
    expect(lines[0]).toMatchObject({ route: '/ok/:id', url: '/ok/1?q=2', status: 200, reqId: expect.any(String) });
    expect(lines[3].err.message).toBe('disk on fire');
    expect(lines[3].reqId).toBe(lines[4].reqId);
    expect(JSON.stringify(lines)).not.toContain('sk-secret');
  });

  it('writes one human-readable line per request in pretty format', async () => {
    const lines = await logOf('pretty', ['/ok/1', '/missing']);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/ok\/1 200 [\d.]+ ms \{"reqId":"req-1"\}$/);
    expect(lines[1]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: GET \/missing 404 [\d.]+ ms/);
  });
});

describe('the start line', () => {
  it('lists what is served, and OTLP/gRPC as off or host:port', () => {
    const routes = [{ url: '/apps' }, { url: '/graphql' }, { url: '/healthz' }, { url: '/v1/traces' }, { url: '/public/otel/v1/traces' }, { url: '/docs/' }];
    expect(startLine({ origin: 'http://h:1', routes, grpc: null })).toBe(
      'Server listening at http://h:1 (REST, also under /api) · GraphQL and GraphiQL http://h:1/graphql · API docs http://h:1/docs · health http://h:1/healthz' +
        ' · OTLP/HTTP http://h:1/v1/traces http://h:1/api/public/otel/v1/traces · OTLP/gRPC off',
    );
    expect(startLine({ origin: 'http://h:1', routes: [], grpc: 'h:4317' })).toBe('Server listening at http://h:1 (REST, also under /api) · OTLP/gRPC h:4317');
  });
});
