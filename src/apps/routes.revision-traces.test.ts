// A revision's traces and figures over HTTP (docs/deployments.md#traces-of-a-revision): traces
// whose spans name the revision by the variant's id or its name (with no app, or this app by id
// or name), not another app's variant of the same name nor another revision; a page at a time;
// the figures with every score name; 404 for an unknown revision and another project's variant;
// 422 naming a bad `limit`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { promptParameters } from '../../test/helpers/evaluations.js';
import { ingestSpans, legacySpan } from '../../test/helpers/spans.js';

const KEY = 'revision-traces-key-0123456789abcdef';
let server: TestServer;
let otherKey: string;
let variantId: string;
let appId: string;

const call = (method: string, path: string, body?: unknown, key = KEY) => server.request(method, path, body, { authorization: `Bearer ${key}` });
const authed = { request: (method: string, path: string, body?: unknown) => call(method, path, body) };

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  otherKey = (await call('POST', '/projects', { name: 'other' })).body.api_key.key;
  appId = (await call('POST', '/apps', { app_name: 'helpdesk' })).body.app_id;
  variantId = (await call('POST', `/apps/${appId}/variants`, { variant_name: 'router', kind: 'prompt', parameters: promptParameters })).body.variant_id;
  await call('PUT', `/variants/${variantId}/parameters`, { parameters: { ...promptParameters, temperature: 1 } });
  const named = (trace: string, seconds: number, extra: Record<string, unknown>) =>
    ingestSpans(authed, trace, [legacySpan(`${trace}-root`, null, 0, seconds, { environment: 'production', ...extra })]);
  await named('by-id', 1, { variant_id: variantId, revision: 2, cost: 0.5 });
  await named('by-name', 3, { variant_name: 'router', revision: 2, cost: 0.25 });
  await named('by-app-name', 2, { variant_name: 'router', app_id: 'helpdesk', revision: 2, environment: 'staging' });
  await named('other-app', 1, { variant_name: 'router', app_id: 'billing', revision: 2 });
  await named('other-revision', 1, { variant_id: variantId, revision: 1 });
  expect((await call('POST', '/scores', { trace_id: 'by-name', name: 'helpful', value: true })).status).toBe(200);
});

afterAll(async () => {
  await server.close();
});

describe('GET /variants/{id}/revisions/{n}/traces and /metrics', () => {
  it("lists the revision's traces, newest first, a page at a time", async () => {
    const all = await call('GET', `/variants/${variantId}/revisions/2/traces`);
    expect(all.status).toBe(200);
    expect(all.body.traces.map((trace: { trace_id: string }) => trace.trace_id).sort()).toEqual(['by-app-name', 'by-id', 'by-name']);
    const first = await call('GET', `/variants/${variantId}/revisions/2/traces?environment=production&limit=1`);
    expect(first.body.traces).toHaveLength(1);
    const second = await call('GET', `/variants/${variantId}/revisions/2/traces?environment=production&limit=1&cursor=${first.body.next_cursor}`);
    expect([first.body.traces[0].trace_id, second.body.traces[0].trace_id].sort()).toEqual(['by-id', 'by-name']);
    expect(second.body.next_cursor).toBeNull();
  });

  it('sums them up: count, cost, latency percentiles and scores', async () => {
    const metrics = await call('GET', `/variants/${variantId}/revisions/2/metrics?environment=production`);
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatchObject({ count: 2, cost: 0.75, latency: { p50: 1, p95: 3 } });
    expect(metrics.body.scores).toMatchObject([{ name: 'helpful', data_type: 'BOOLEAN', count: 1, mean: 1 }]);
    expect((await call('GET', `/variants/${variantId}/revisions/1/metrics`)).body).toMatchObject({ count: 1, scores: [] });
  });

  it("answers 404 for a revision the variant lacks and for another project's variant, 422 naming a bad limit", async () => {
    expect((await call('GET', `/variants/${variantId}/revisions/9/traces`)).status).toBe(404);
    expect((await call('GET', `/variants/${variantId}/revisions/2/metrics`, undefined, otherKey)).status).toBe(404);
    const bad = await call('GET', `/variants/${variantId}/revisions/2/traces?limit=0`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'limit']);
  });
});
