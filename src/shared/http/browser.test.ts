// Browser protections over real HTTP (docs/access.md#browsers): CORS only for ASSAY_CORS_ORIGINS,
// cross-site state changes refused on every kind of write (JSON, text/plain, multipart, OTLP,
// GraphQL), Host names checked against DNS rebinding; and, with auth on, outbound calls refused
// at loopback addresses (docs/access.md#outbound-calls). Every request goes to 127.0.0.1; other
// names and origins appear only in headers.
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEndpoint, type FakeEndpoint } from '../../../test/helpers/endpoints.js';
import * as fixtures from '../../../test/helpers/evaluations.js';
import { loadConfig } from '../config.js';
import { startServer, type TestServer } from '../../../test/helpers/server.js';
import { T0_NS, otlpProtobufBody } from '../../../test/helpers/otlp-trace.js';

const ALLOWED = 'http://app.allowed.test:3000';
const EVIL = 'http://evil.test';
const KEY = 'browser-guard-test-key-0123456789';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request with exactly these headers (undici lets a test set Host and Origin). */
async function send(server: TestServer, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
  const response = await request(server.baseUrl + path, { method: method as 'GET', headers, body });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

async function appCount(server: TestServer, name: string): Promise<number> {
  const apps = (await server.request('GET', `/apps?app_name=${name}`, undefined, { authorization: `Bearer ${KEY}` })).body as unknown[];
  return apps.length;
}

it('reads the settings as lists, and stops the start on a bad entry naming the variable', () => {
  const config = loadConfig({
    ASSAY_CORS_ORIGINS: 'https://a.example.com/, http://localhost:3000',
    ASSAY_ALLOWED_HOSTS: 'Assay.LAN,[::1]',
    ASSAY_OUTBOUND_ALLOW: '10.0.0.0/8, models.lan',
  });
  expect(config.ASSAY_CORS_ORIGINS).toEqual(['https://a.example.com', 'http://localhost:3000']);
  expect(config.ASSAY_ALLOWED_HOSTS).toEqual(['assay.lan', '::1']);
  expect(config.ASSAY_OUTBOUND_ALLOW).toEqual(['10.0.0.0/8', 'models.lan']);
  expect(() => loadConfig({ ASSAY_CORS_ORIGINS: 'https://a.example.com/app' })).toThrow(/ASSAY_CORS_ORIGINS\.0: each origin must be/);
  expect(() => loadConfig({ ASSAY_ALLOWED_HOSTS: 'http://assay.lan' })).toThrow(/ASSAY_ALLOWED_HOSTS\.0/);
  expect(() => loadConfig({ ASSAY_OUTBOUND_ALLOW: '10.0.0.0/99' })).toThrow(/ASSAY_OUTBOUND_ALLOW\.0: each entry must be/);
  expect(() => loadConfig({ OPENAI_BASE_URL: 'api.openai.com/v1' })).toThrow(/OPENAI_BASE_URL: must be an http or https URL/);
});

describe('auth off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ ASSAY_CORS_ORIGINS: `${ALLOWED}, https://other.allowed.test`, ASSAY_ALLOWED_HOSTS: 'assay.lan' });
  });
  afterAll(() => server?.close());

  it('grants CORS to the listed origins only, on GraphQL and REST, never echoing another', async () => {
    for (const path of ['/graphql?query=%7B__typename%7D', '/apps']) {
      const evil = await send(server, 'GET', path, { origin: EVIL });
      expect(evil.status).toBe(200);
      expect(evil.headers['access-control-allow-origin']).toBeUndefined();
      expect(evil.headers['access-control-allow-credentials']).toBeUndefined();
      expect(evil.headers.vary).toMatch(/Origin/i);
      const allowed = await send(server, 'GET', path, { origin: ALLOWED });
      expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    }
  });

  it('answers preflights of listed origins, refuses the others', async () => {
    const preflight = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' };
    for (const path of ['/graphql', '/apps', '/v1/traces']) {
      const allowed = await send(server, 'OPTIONS', path, { origin: ALLOWED, ...preflight });
      expect(allowed.status).toBe(204);
      expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(allowed.headers['access-control-allow-methods']).toContain('POST');
      expect(allowed.headers['access-control-allow-headers']).toBe('content-type, authorization');
      const evil = await send(server, 'OPTIONS', path, { origin: EVIL, ...preflight });
      expect(evil.status).toBe(403);
      expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('refuses a cross-site text/plain POST (no preflight in a browser), keeps curl and same-origin working', async () => {
    const body = (name: string) => JSON.stringify({ app_name: name });
    const crossSite = await send(server, 'POST', '/apps', { origin: EVIL, 'content-type': 'text/plain' }, body('csrf-origin'));
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.text).detail).toContain('ASSAY_CORS_ORIGINS');
    // Sec-Fetch-Site alone (a browser that left Origin out), and same-site (another port of localhost).
    expect((await send(server, 'POST', '/apps', { 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' }, body('csrf-fetch-site'))).status).toBe(403);
    expect((await send(server, 'POST', '/apps', { 'sec-fetch-site': 'same-site', origin: 'http://localhost:3000' }, body('csrf-same-site'))).status).toBe(403);
    expect((await send(server, 'POST', '/apps', { origin: 'null', 'content-type': 'text/plain' }, body('csrf-null'))).status).toBe(403);
    for (const name of ['csrf-origin', 'csrf-fetch-site', 'csrf-same-site', 'csrf-null']) expect(await appCount(server, name)).toBe(0);

    // What `curl -d` sends; a text/plain body is no JSON to read (docs/validation.md).
    expect((await send(server, 'POST', '/apps', { 'content-type': 'application/x-www-form-urlencoded' }, body('curl-app'))).status).toBe(200);
    const sameOrigin = { origin: server.baseUrl, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' };
    expect((await send(server, 'POST', '/apps', sameOrigin, body('same-origin-app'))).status).toBe(200);
    expect((await send(server, 'POST', '/apps', { origin: server.baseUrl }, body('origin-only-app'))).status).toBe(200);
    expect((await send(server, 'POST', '/apps', { origin: ALLOWED, 'sec-fetch-site': 'cross-site' }, body('allowed-app'))).status).toBe(200);
  });

  it('refuses cross-site multipart uploads, OTLP exports and GraphQL mutations', async () => {
    const boundary = 'guard';
    const multipart = [
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.csv"\r\nContent-Type: text/csv\r\n\r\ncountry,correct_answer\nFrance,Paris\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="upload_type"\r\n\r\nCSV`,
      `--${boundary}\r\nContent-Disposition: form-data; name="testset_name"\r\n\r\ncsrf-upload`,
      `--${boundary}--\r\n`,
    ].join('\r\n');
    const upload = await send(server, 'POST', '/testsets/upload', { origin: EVIL, 'content-type': `multipart/form-data; boundary=${boundary}` }, multipart);
    expect(upload.status).toBe(403);
    expect((await server.request('GET', '/testsets')).body.map((t: { name: string }) => t.name)).not.toContain('csrf-upload');

    const traceId = 'ab'.repeat(16);
    const span = { traceId, spanId: 'cd'.repeat(8), parentSpanId: null, name: 'csrf-span', kind: 'AGENT' as const, startNs: T0_NS, endNs: T0_NS + 1000n };
    const protobuf = await send(
      server,
      'POST',
      '/v1/traces',
      { origin: EVIL, 'content-type': 'application/x-protobuf' },
      Buffer.from(otlpProtobufBody([span])),
    );
    expect(protobuf.status).toBe(403);
    const json = {
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: span.spanId, name: 'csrf-span', startTimeUnixNano: '1', endTimeUnixNano: '2' }] }] }],
    };
    const jsonExport = await send(
      server,
      'POST',
      '/api/public/otel/v1/traces',
      { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
      JSON.stringify(json),
    );
    expect(jsonExport.status).toBe(403);
    expect((await server.request('GET', `/observability/traces/${traceId}`)).status).toBe(404);

    const mutation = 'mutation($name: String!) { createApp(input: {appName: $name}) { id } }';
    const post = await send(
      server,
      'POST',
      '/graphql',
      { origin: EVIL, 'content-type': 'text/plain' },
      JSON.stringify({ query: mutation, variables: { name: 'csrf-graphql' } }),
    );
    expect(post.status).toBe(403);
    expect(JSON.parse(post.text).errors[0].extensions.code).toBe('FORBIDDEN');
    // A GET runs no mutation at all (graphql-yoga), from anywhere.
    const get = await send(server, 'GET', `/graphql?query=${encodeURIComponent(mutation)}&variables=${encodeURIComponent('{"name":"csrf-graphql"}')}`, {
      origin: EVIL,
      'sec-fetch-site': 'cross-site',
    });
    expect(get.status).toBe(405);
    expect(await appCount(server, 'csrf-graphql')).toBe(0);
    // The same mutation, sent by a client that is not a browser, runs: it was refused for its origin alone.
    expect((await server.graphql(mutation, { name: 'graphql-app' })).data.createApp.id).toBeTruthy();
  });

  it('serves loopback names and ASSAY_ALLOWED_HOSTS only (DNS rebinding), health to any name', async () => {
    for (const host of ['localhost', 'localhost:8000', '127.0.0.1:1', '[::1]:8000', '127.0.0.2', 'assay.lan:8000', 'ASSAY.LAN']) {
      expect((await send(server, 'GET', '/apps', { host })).status, host).toBe(200);
    }
    for (const host of ['evil.test', 'evil.test:8000', 'localhost.evil.test', '10.0.0.1', '127.0.0.1.nip.io']) {
      const refused = await send(server, 'GET', '/apps', { host });
      expect(refused.status, host).toBe(421);
      expect(JSON.parse(refused.text).detail).toContain('ASSAY_ALLOWED_HOSTS');
    }
    const graphql = await send(server, 'POST', '/graphql', { host: 'evil.test', 'content-type': 'application/json' }, '{"query":"{__typename}"}');
    expect(graphql.status).toBe(421);
    expect(JSON.parse(graphql.text).errors[0].extensions.code).toBe('MISDIRECTED_REQUEST');
    expect((await send(server, 'GET', '/healthz', { host: 'evil.test' })).status).toBe(200);
  });

  it('refuses a malformed base URL in lm_providers_keys with a 422 naming it', async () => {
    const response = await server.request('POST', '/evaluations', {
      app_id: 'x',
      variant_ids: ['x'],
      evaluators_configs: [],
      testset_id: 'x',
      lm_providers_keys: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'file:///etc/passwd' },
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'lm_providers_keys', 'OPENAI_BASE_URL'] }));
  });
});

describe('auth on', () => {
  let server: TestServer;
  let restricted: TestServer;
  let endpoint: FakeEndpoint;
  const auth = { authorization: `Bearer ${KEY}` };
  beforeAll(async () => {
    server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY, ASSAY_CORS_ORIGINS: ALLOWED });
    restricted = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY, ASSAY_ALLOWED_HOSTS: 'assay.example.com' });
    endpoint = await startEndpoint(() => ({ body: { data: 'Paris' } }));
  });
  afterAll(async () => {
    await server?.close();
    await restricted?.close();
    await endpoint?.close();
  });

  it("answers a listed origin's preflight without a key, and checks Host only when ASSAY_ALLOWED_HOSTS is set", async () => {
    const preflight = await send(server, 'OPTIONS', '/graphql', { origin: ALLOWED, 'access-control-request-method': 'POST' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect((await send(server, 'OPTIONS', '/graphql', { origin: EVIL, 'access-control-request-method': 'POST' })).status).toBe(403);

    expect((await send(server, 'GET', '/apps', { host: 'assay.example.com', ...auth })).status).toBe(200);
    expect((await send(restricted, 'GET', '/apps', { host: 'assay.example.com', ...auth })).status).toBe(200);
    expect((await send(restricted, 'GET', '/apps', { host: '127.0.0.1', ...auth })).status).toBe(421);
    // Refused across sites even with a valid key: a page must not use a key the browser was given.
    expect((await send(server, 'POST', '/apps', { origin: EVIL, ...auth }, '{"app_name":"csrf-keyed"}')).status).toBe(403);
  });

  it("refuses an evaluation's call to a loopback endpoint, saying why, and sends it nothing", async () => {
    const keyed = { request: (method: string, path: string, body?: unknown) => server.request(method, path, body, auth) };
    const appId = await fixtures.createApp(keyed);
    // A loopback uri is refused when saved (src/shared/http/outbound.saved-urls.test.ts); one saved
    // before that rule, planted here, is still refused when called.
    const variant = await fixtures.createEndpointVariant(keyed, appId, 'http://saved-before-the-rule.invalid/generate');
    await server.assay.db.variantRevision.updateMany({ where: { variantId: variant.variant_id }, data: { uri: endpoint.url } });
    const testset = await fixtures.createTestset(keyed, [{ country: 'France', correct_answer: 'Paris' }]);
    const exact = await fixtures.createConfig(keyed, appId, 'auto_exact_match');
    const { id } = await fixtures.startEvaluation(keyed, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testset.id,
    });
    await fixtures.waitForStatus(keyed, id);
    const [scenario] = await fixtures.getScenarios(keyed, id);
    const error = JSON.stringify(scenario.outputs);
    expect(error).toContain('was refused: it is a loopback address');
    expect(error).toContain('ASSAY_OUTBOUND_ALLOW');
    expect(endpoint.requests).toHaveLength(0);
  });

  it('calls what ASSAY_OUTBOUND_ALLOW lists, and refuses a webhook at another loopback address', async () => {
    const allowing = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY, ASSAY_OUTBOUND_ALLOW: '127.0.0.1' });
    try {
      const keyed = { request: (method: string, path: string, body?: unknown) => allowing.request(method, path, body, auth) };
      const appId = await fixtures.createApp(keyed);
      const variant = await fixtures.createEndpointVariant(keyed, appId, endpoint.url);
      const testset = await fixtures.createTestset(keyed, [{ country: 'France', correct_answer: 'Paris' }]);
      // Refused before connecting: nothing is sent to 127.0.0.2 (refused when saved, so planted as saved before that rule).
      const webhook = await fixtures.createConfig(keyed, appId, 'auto_webhook_test', { webhook_url: 'http://saved-before-the-rule.invalid/score' });
      await allowing.assay.db.evaluatorConfig.update({ where: { id: webhook.id }, data: { settingsValues: { webhook_url: 'http://127.0.0.2:8000/score' } } });
      const { id } = await fixtures.startEvaluation(keyed, {
        app_id: appId,
        variant_ids: [variant.variant_id],
        evaluators_configs: [webhook.id],
        testset_id: testset.id,
      });
      await fixtures.waitForStatus(keyed, id);
      const [scenario] = await fixtures.getScenarios(keyed, id);
      expect(JSON.stringify(scenario.outputs)).toContain('Paris');
      expect(JSON.stringify(scenario.results)).toContain('127.0.0.2 was refused: it is a loopback address');
      expect(endpoint.requests).toHaveLength(1);
    } finally {
      await allowing.close();
    }
  });
});
