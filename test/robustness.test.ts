// No input makes the service answer 5xx: every route, with ids real and made up, gets bodies and
// query strings of every wrong shape. Routes added later are covered without editing this file.
import { beforeAll, describe, expect, it } from 'vitest';
import { otlpHttpPaths } from '../src/observability/ingestion/otlp/http-receiver.js';
import { useTestServer } from './helpers/server.js';

const server = useTestServer();
const realIds: Record<string, string> = {};

beforeAll(async () => {
  const app = (await server.request('POST', '/apps', { app_name: 'robust' })).body;
  realIds.app_id = app.app_id;
  const variant = (await server.request('POST', `/apps/${app.app_id}/variants`, { variant_name: 'v', kind: 'endpoint', uri: 'http://127.0.0.1:9/' })).body;
  realIds.variant_id = variant.variant_id;
  realIds.revision = '1';
  // Touched by no route: it must survive everything below.
  await server.request('POST', '/apps', { app_name: 'witness' });
});

const deep = '['.repeat(5000) + ']'.repeat(5000);
const hostileBodies: unknown[] = [
  null,
  [],
  'text',
  12,
  true,
  {},
  { app_id: {}, name: [], variant_ids: 'x', csvdata: 7, spans: {}, settings_values: [], parameters: 'p', rate_limit: null },
  { app_name: 'a'.repeat(100_000) },
  `{"parameters": {"a": ${deep}}, "app_name": ${deep}, "spans": ${deep}}`,
  '{"unterminated": ',
  // null where a list holds objects or strings: a 422 at that item, never a crash in a refinement.
  ...['spans', 'csvdata', 'variant_ids', 'evaluators_configs', 'evaluations_ids', 'testset_ids', 'inputs', 'outputs', 'messages'].map((list) => ({
    trace: '0',
    [list]: [null],
  })),
  { parameters: { model: 'm', messages: [null] }, settings_values: { prompt_template: [null] }, kind: 'prompt', variant_name: 'n' },
  [null],
];
const hostileQueries = ['', '?type=%00', '?app_id[]=1&app_id[]=2', '?first=-1&type=generation', `?x=${'%ff'.repeat(50)}`];

function hasDetailShape(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 1 && 'detail' in body;
}

// Langfuse's public API answers Langfuse's `{message, error}`, as its SDKs read it (docs/langfuse.md#errors).
const isLangfuseRoute = (url: string) => url.startsWith('/public/') && !url.startsWith('/public/otel/');
function hasLangfuseShape(body: unknown): boolean {
  return typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string' && 'error' in body;
}
const hasErrorShape = (url: string, body: unknown) => (isLangfuseRoute(url) ? hasLangfuseShape(body) : hasDetailShape(body));

function fill(url: string, real: boolean): string {
  return url.replace(/:([a-zA-Z_]+)/g, (_, name: string) => (real && realIds[name] ? realIds[name] : encodeURIComponent('x\'; DROP TABLE "App"; --')));
}

describe('robustness', () => {
  it('answers every route with hostile input without a 5xx', async () => {
    // Deletes last: with the real ids they succeed, and the other routes should see the entities.
    const routes = server.assay.routes
      // GraphQL's endpoints answer GraphQL's `{errors}`, which their clients read (tested apart).
      .filter((route) => !route.url.startsWith('/graphql') && route.url !== '*')
      .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    expect(routes.length).toBeGreaterThan(10);
    const failures: string[] = [];
    for (const route of routes) {
      for (const real of [true, false]) {
        const path = fill(route.url, real);
        // Each OTLP traces path has its /v1/logs beside it.
        const otlp = otlpHttpPaths.some((traces) => route.url === traces || route.url === traces.replace(/traces$/, 'logs'));
        for (const query of hostileQueries) {
          const bodies = route.method === 'GET' ? [undefined] : route.method === 'DELETE' ? [undefined, ...hostileBodies.slice(0, 3)] : hostileBodies;
          for (const body of bodies) {
            const response = await server.request(
              route.method,
              path + query,
              body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
            );
            const what = `${route.method} ${path}${query} ${JSON.stringify(body)?.slice(0, 60)} → ${response.status} ${response.text.slice(0, 200)}`;
            if (response.status >= 500) failures.push(what);
            // Every error answer is FastAPI's `{"detail": …}`, whoever produced it.
            // (OTLP answers a google.rpc.Status instead, as its exporters expect.)
            else if (response.status >= 400 && !otlp && !hasErrorShape(route.url, response.body)) failures.push(`not {detail}: ${what}`);
          }
        }
      }
    }
    // Ids the router once refused in Fastify's own shape: past maxParamLength (414), malformed
    // percent-encoding (400). Each is an unknown id like any other.
    for (const route of routes.filter((route) => route.url.includes(':'))) {
      for (const id of ['a'.repeat(600), '%E0%A4%A', '%', '%ZZ%00']) {
        const path = route.url.replace(/:([a-zA-Z_]+)/g, id);
        const response = await server.request(route.method, path, route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
        const what = `${route.method} ${path.slice(0, 80)} → ${response.status} ${response.text.slice(0, 200)}`;
        // Langfuse validates a body before it looks an id up: its 400 comes first there.
        const statuses = isLangfuseRoute(route.url) ? [400, 404] : [404, 422];
        if (!statuses.includes(response.status) || !hasErrorShape(route.url, response.body)) failures.push(`unknown id: ${what}`);
      }
    }
    expect(failures).toEqual([]);
    // The made-up ids, shaped like SQL injection, dropped nothing.
    const apps = await server.request('GET', '/apps');
    expect(apps.status).toBe(200);
    expect(apps.body.map((app: { app_name: string }) => app.app_name)).toContain('witness');
  }, 120_000);
});
