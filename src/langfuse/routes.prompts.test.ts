// Langfuse's prompt routes over HTTP (docs/deployments.md#langfuse): faults answered in Langfuse's
// 400 naming the field, 404 for unknown prompts, versions, labels and another project's alike, and
// the one model under both APIs: an Assay deployment is a Langfuse label, a Langfuse label an
// audited deployment, and a `{{variable}}` filled as a `{column}` when Assay runs the prompt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { fillTemplate } from '../invocation/invocation.js';

const KEY = 'langfuse-prompts-routes-key-0123456789';
let server: TestServer;
let otherKey: string;

const basic = (secret = KEY) => ({ authorization: `Basic ${Buffer.from(`pk-lf-public:${secret}`).toString('base64')}` });
const call = (method: string, path: string, body?: unknown, key = KEY) => server.request(method, `/api/public${path}`, body, basic(key));
const textPrompt = (name: string, extra: Record<string, unknown> = {}) => ({ name, prompt: 'Say {{word}}', config: { model: 'gpt-4o-mini' }, ...extra });

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  otherKey = (await server.request('POST', '/projects', { name: 'other' }, basic())).body.api_key.key;
});

afterAll(async () => {
  await server.close();
});

describe('Langfuse prompts', () => {
  it('refuses faults in Langfuse’s 400, naming the field', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ name: 'p', type: 'chat', prompt: [{ type: 'placeholder', name: 'history' }], config: { model: 'm' } }, ['prompt']],
      [{ name: 'p', type: 'chat', prompt: [{ role: 'narrator', content: 'x' }], config: { model: 'm' } }, ['prompt']],
      [{ name: 'p', type: 'chat', prompt: 'text for a chat', config: { model: 'm' } }, ['prompt']],
      [textPrompt('p', { labels: ['latest'] }), ['labels', 0]],
      [textPrompt('p', { labels: ['no spaces'] }), ['labels', 0]],
      [{ prompt: 'x' }, ['name']],
    ];
    for (const [body, path] of cases) {
      const answer = await call('POST', '/v2/prompts', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message).toBe('Invalid request data');
      expect(answer.body.error.map((fault: { path: unknown[] }) => fault.path.slice(0, path.length))).toContainEqual(path);
    }
    const noModel = await call('POST', '/v2/prompts', { name: 'p', prompt: 'x' });
    expect(noModel).toMatchObject({ status: 400, body: { error: 'InvalidRequestError' } });
    expect(noModel.body.message).toContain('config.model');
    const hot = await call('POST', '/v2/prompts', textPrompt('p', { config: { model: 'm', temperature: 9 } }));
    expect(hot.status).toBe(400);
    expect(hot.body.error[0].path).toEqual(['config', 'temperature']);
    const both = await call('GET', '/v2/prompts/p?version=1&label=production');
    expect(both.status).toBe(400);
    // Nothing was stored by the refusals.
    expect((await call('GET', '/v2/prompts')).body.data).toEqual([]);
    expect((await server.request('GET', '/apps', undefined, basic())).body).toEqual([]);
  });

  it('answers 404 for unknown prompts, versions and labels, and another project’s alike', async () => {
    expect((await call('POST', '/v2/prompts', textPrompt('mine', { labels: ['production'] }))).status).toBe(200);
    for (const path of ['/v2/prompts/nothing', '/v2/prompts/mine?version=7', '/v2/prompts/mine?label=staging']) {
      const answer = await call('GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error).toBe('LangfuseNotFoundError');
    }
    expect((await call('GET', '/v2/prompts/mine', undefined, otherKey)).status).toBe(404);
    expect((await call('PATCH', '/v2/prompts/mine/versions/1', { newLabels: ['staging'] }, otherKey)).status).toBe(404);
    expect((await call('PATCH', '/v2/prompts/mine/versions/2', { newLabels: ['staging'] })).status).toBe(404);
    expect((await call('GET', '/v2/prompts', undefined, otherKey)).body.data).toEqual([]);
    expect((await call('GET', '/v2/prompts/mine')).body.labels).toEqual(['production', 'latest']);
  });

  it('shares deployments with Assay: labels are audited deployments and deployments are labels', async () => {
    const created = await call('POST', '/v2/prompts', textPrompt('shared', { labels: ['canary'], commitMessage: 'try it' }));
    expect(created.body).toMatchObject({ version: 1, labels: ['canary', 'latest'], commitMessage: 'try it' });
    const [app] = (await server.request('GET', '/apps?app_name=shared', undefined, basic())).body;
    const environments = (await server.request('GET', `/apps/${app.app_id}/environments`, undefined, basic())).body;
    expect(environments.map((env: { name: string }) => env.name)).toEqual(['development', 'staging', 'production', 'canary']);
    const audit = await server.assay.db.auditEvent.findMany({ where: { action: 'deployment.created', targetId: environments[3].environment_id } });
    expect(audit).toHaveLength(1);

    const variantId = environments[3].variant_id;
    const revisions = (await server.request('GET', `/variants/${variantId}/revisions`, undefined, basic())).body;
    expect(revisions[0].message).toBe('try it');
    await server.request('POST', `/apps/${app.app_id}/environments/staging/deploy`, { variant_id: variantId }, basic());
    expect((await call('GET', '/v2/prompts/shared?label=staging')).body).toMatchObject({ version: 1, labels: ['staging', 'canary', 'latest'] });
  });

  it('serves a name with a slash and spaces, as the SDK encodes it, as one app name', async () => {
    const name = 'support/greeting v2';
    expect((await call('POST', '/v2/prompts', textPrompt(name, { labels: ['production'] }))).status).toBe(200);
    const read = await call('GET', `/v2/prompts/${encodeURIComponent(name)}`);
    expect(read.body).toMatchObject({ name, version: 1 });
    expect((await call('PATCH', `/v2/prompts/${encodeURIComponent(name)}/versions/1`, { newLabels: ['staging'] })).body.labels).toEqual([
      'staging',
      'production',
      'latest',
    ]);
    expect((await server.request('GET', `/apps?app_name=${encodeURIComponent(name)}`, undefined, basic())).body).toHaveLength(1);
  });

  it('fills {{variable}} as Assay fills {column}, leaving unknown names and JSON alone', () => {
    expect(fillTemplate('Hi {{ name }} from {city}; {{unknown}} {"a": 1}', { name: 'Ada', city: 'Paris' })).toBe('Hi Ada from Paris; {{unknown}} {"a": 1}');
  });
});
