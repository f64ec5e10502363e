// Environments and deployments over HTTP (docs/deployments.md): the default environments, custom
// ones, deploying and rolling back with the history and the audit log, the deployed config with
// its ETag and 304, 404 for unknown and another project's ids alike, 422 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { promptParameters } from '../../test/helpers/evaluations.js';

const KEY = 'deployments-key-0123456789abcdef';
let server: TestServer;
let otherKey: string;

const bearer = (key = KEY) => ({ authorization: `Bearer ${key}` });
const call = (method: string, path: string, body?: unknown, key = KEY) => server.request(method, path, body, bearer(key));

async function appWithVariant(name: string) {
  const app = await call('POST', '/apps', { app_name: name });
  expect(app.status).toBe(200);
  const variant = await call('POST', `/apps/${app.body.app_id}/variants`, { variant_name: 'main', kind: 'prompt', parameters: promptParameters });
  expect(variant.status).toBe(200);
  const second = { ...promptParameters, temperature: 1 };
  expect((await call('PUT', `/variants/${variant.body.variant_id}/parameters`, { parameters: second })).status).toBe(200);
  return { appId: app.body.app_id as string, variantId: variant.body.variant_id as string };
}

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  otherKey = (await call('POST', '/projects', { name: 'other' })).body.api_key.key;
});

afterAll(async () => {
  await server.close();
});

describe('environments', () => {
  it('gives every app development, staging and production, and adds and deletes its own', async () => {
    const { appId } = await appWithVariant('environments');
    const listed = await call('GET', `/apps/${appId}/environments`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((env: { name: string }) => env.name)).toEqual(['development', 'staging', 'production']);
    expect(listed.body[0]).toMatchObject({ app_id: appId, revision_id: null, variant_id: null, revision: null, deployed_at: null });

    const qa = await call('POST', `/apps/${appId}/environments`, { name: 'qa' });
    expect(qa.status).toBe(200);
    expect(qa.body).toMatchObject({ name: 'qa', app_id: appId });
    expect((await call('POST', `/apps/${appId}/environments`, { name: 'qa' })).status).toBe(409);
    expect((await call('GET', `/apps/${appId}/environments/qa`)).body).toEqual(qa.body);

    expect((await call('DELETE', `/apps/${appId}/environments/production`)).status).toBe(409);
    expect((await call('DELETE', `/apps/${appId}/environments/qa`)).status).toBe(204);
    expect((await call('GET', `/apps/${appId}/environments/qa`)).status).toBe(404);
  });

  it('refuses a bad name with a 422 naming the field', async () => {
    const { appId } = await appWithVariant('environments-bad');
    const answer = await call('POST', `/apps/${appId}/environments`, { name: 'no spaces/here' });
    expect(answer.status).toBe(422);
    expect(answer.body.detail[0].loc).toEqual(['body', 'name']);
    const missing = await call('POST', `/apps/${appId}/environments/production/deploy`, { revision: 0 });
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((issue: { loc: string[] }) => issue.loc.join('.')).sort()).toEqual(['body.revision', 'body.variant_id']);
  });
});

describe('deployments', () => {
  it('deploys, rolls back, keeps the history and records each in the audit log', async () => {
    const { appId, variantId } = await appWithVariant('deploy');
    const first = await call('POST', `/apps/${appId}/environments/production/deploy`, { variant_id: variantId });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ name: 'production', variant_id: variantId, variant_name: 'main', revision: 2 });
    const rollback = await call('POST', `/apps/${appId}/environments/production/deploy`, { variant_id: variantId, revision: 1 });
    expect(rollback.body).toMatchObject({ revision: 1 });
    expect((await call('GET', `/apps/${appId}/environments/production/config`)).body).toMatchObject({
      app_id: appId,
      environment: 'production',
      variant_id: variantId,
      kind: 'prompt',
      revision: 1,
      parameters: promptParameters,
    });

    const history = await call('GET', `/apps/${appId}/environments/production/deployments`);
    expect(history.body.map((d: { revision: number }) => d.revision)).toEqual([1, 2]);
    expect(history.body[0].deployed_by).toMatchObject({ type: 'api_key' });

    const audit = await server.assay.db.auditEvent.findMany({
      where: { action: 'deployment.created', targetId: first.body.environment_id },
      orderBy: { id: 'asc' },
    });
    expect(audit.map((event) => JSON.parse(event.details ?? '{}').revision)).toEqual([2, 1]);
    expect(audit[0]).toMatchObject({ actorType: 'api_key', projectId: expect.any(String) });
    // The other environments are untouched.
    expect((await call('GET', `/apps/${appId}/environments/staging`)).body.revision_id).toBeNull();
  });

  it('answers the config with an ETag, a 304 while unchanged and a new tag after a deployment', async () => {
    const { appId, variantId } = await appWithVariant('etag');
    const path = `/apps/${appId}/environments/staging/config`;
    expect((await call('GET', path)).status).toBe(404);
    await call('POST', `/apps/${appId}/environments/staging/deploy`, { variant_id: variantId, revision: 1 });
    const first = await call('GET', path);
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await server.request('GET', path, undefined, { ...bearer(), 'if-none-match': tag! });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await server.request('GET', path, undefined, { ...bearer(), 'if-none-match': `"other", W/${tag}` })).status).toBe(304);

    await call('POST', `/apps/${appId}/environments/staging/deploy`, { variant_id: variantId, revision: 2 });
    const changed = await server.request('GET', path, undefined, { ...bearer(), 'if-none-match': tag! });
    expect(changed.status).toBe(200);
    expect(changed.body.revision).toBe(2);
    expect(changed.headers.get('etag')).not.toBe(tag);
  });

  it('answers 404 for unknown ids and another project’s alike, and changes nothing', async () => {
    const { appId, variantId } = await appWithVariant('deploy-404');
    const other = await appWithVariant('deploy-404-other-app');
    const deploy = (body: unknown, key = KEY, app = appId) => call('POST', `/apps/${app}/environments/production/deploy`, body, key);
    expect((await deploy({ variant_id: variantId }, otherKey)).status).toBe(404);
    expect((await call('GET', `/apps/${appId}/environments`, undefined, otherKey)).status).toBe(404);
    expect((await call('GET', `/apps/${appId}/environments/production/config`, undefined, otherKey)).status).toBe(404);
    expect((await deploy({ variant_id: other.variantId })).status).toBe(404);
    expect((await deploy({ variant_id: variantId, revision: 9 })).status).toBe(404);
    expect((await call('POST', `/apps/${appId}/environments/nowhere/deploy`, { variant_id: variantId })).status).toBe(404);
    expect((await call('GET', `/apps/unknown/environments`)).status).toBe(404);
    expect((await call('GET', `/apps/${appId}/environments/production`)).body.revision_id).toBeNull();
  });

  it('keeps an environment once its deployed variant is deleted, serving nothing', async () => {
    const { appId, variantId } = await appWithVariant('deploy-deleted');
    await call('POST', `/apps/${appId}/environments/development/deploy`, { variant_id: variantId });
    expect((await call('DELETE', `/variants/${variantId}`)).status).toBe(204);
    expect((await call('GET', `/apps/${appId}/environments/development`)).body).toMatchObject({ revision_id: null });
    expect((await call('GET', `/apps/${appId}/environments/development/config`)).status).toBe(404);
  });
});
