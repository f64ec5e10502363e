// The app routes over HTTP (docs/contract.md): the shape of an app, /api and trailing slashes,
// listing and filtering, renames and deletes, 409 and 422 faults, and 404 for unknown ids and routes.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp } from '../../test/helpers/evaluations.js';
import { ISO, UUID7 } from '../../test/helpers/contract.js';

const server = useTestServer();

describe('apps', () => {
  it('creates an app with the documented shape', async () => {
    const response = await server.request('POST', '/apps', { app_name: 'shape-app' });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['app_id', 'app_name', 'created_at', 'updated_at']);
    expect(response.body.app_id).toMatch(UUID7);
    expect(response.body.app_name).toBe('shape-app');
    expect(response.body.created_at).toMatch(ISO);
    expect(response.body.updated_at).toMatch(ISO);
  });

  it('serves every route under /api and with or without a trailing slash', async () => {
    const appId = await createApp(server, 'prefixed');
    for (const path of [`/apps/${appId}`, `/apps/${appId}/`, `/api/apps/${appId}`, `/api/apps/${appId}/`]) {
      const response = await server.request('GET', path);
      expect(response.status, path).toBe(200);
      expect(response.body.app_name).toBe('prefixed');
    }
  });

  it('lists apps and filters them by name', async () => {
    await createApp(server, 'listed-a');
    await createApp(server, 'listed-b');
    const all = await server.request('GET', '/apps');
    expect(all.status).toBe(200);
    expect(all.body.map((app: { app_name: string }) => app.app_name)).toEqual(expect.arrayContaining(['listed-a', 'listed-b']));
    const one = await server.request('GET', '/apps?app_name=listed-b');
    expect(one.body).toHaveLength(1);
    expect(one.body[0].app_name).toBe('listed-b');
  });

  it('renames and deletes an app', async () => {
    const appId = await createApp(server, 'before-rename');
    const renamed = await server.request('PATCH', `/apps/${appId}`, { app_name: 'after-rename' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ app_id: appId, app_name: 'after-rename' });
    expect((await server.request('DELETE', `/apps/${appId}`)).status).toBe(204);
    expect((await server.request('GET', `/apps/${appId}`)).body).toEqual({ detail: `App with id ${appId} not found` });
  });

  it('refuses a duplicate name with 409', async () => {
    await createApp(server, 'twice');
    const response = await server.request('POST', '/apps', { app_name: 'twice' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ detail: 'An app named twice already exists' });
    const otherId = await createApp(server, 'twice-2');
    const rename = await server.request('PATCH', `/apps/${otherId}`, { app_name: 'twice' });
    expect(rename.status).toBe(409);
  });

  it.each([
    [{}, [{ loc: ['body', 'app_name'], msg: 'Field required', type: 'missing' }]],
    [{ app_name: 42 }, [{ loc: ['body', 'app_name'], msg: 'Input should be a valid string', type: 'string_type' }]],
    [{ app_name: '   ' }, [{ loc: ['body', 'app_name'], msg: 'String should have at least 1 character', type: 'string_too_short' }]],
    [[], [{ loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' }]],
    [null, [{ loc: ['body'], msg: 'Field required', type: 'missing' }]],
  ])('answers 422 for %j', async (body, detail) => {
    const response = await server.request('POST', '/apps', body);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail });
  });

  it('answers 422 json_invalid for a malformed body, and missing for no body', async () => {
    const malformed = await server.request('POST', '/apps', '{"app_name": ');
    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual({ detail: [{ loc: ['body', 13], msg: 'JSON decode error', type: 'json_invalid' }] });
    const empty = await server.request('POST', '/apps', '');
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
  });

  it('refuses JSON nested deeper than 128 levels with 422', async () => {
    const nested = (depth: number) => `{"app_name": "deep", "x": ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect((await server.request('POST', '/apps', nested(128))).status).toBe(200);
    const response = await server.request('POST', '/apps', nested(129));
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ detail: [{ loc: ['body'], msg: 'JSON nested deeper than 128 levels', type: 'value_error' }] });
  });

  it('reads a body sent with a form content type as JSON (curl -d)', async () => {
    const response = await server.request('POST', '/apps', '{"app_name":"from-curl"}', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(response.status).toBe(200);
    expect(response.body.app_name).toBe('from-curl');
  });

  it('answers 404 for unknown and malformed ids on every app route', async () => {
    for (const id of ['0192f1d3-0000-7000-8000-000000000000', 'not-a-uuid', "1' OR '1'='1"]) {
      const encoded = encodeURIComponent(id);
      const expected = { detail: `App with id ${id} not found` };
      for (const [method, body] of [['GET'], ['PATCH', { app_name: 'x' }], ['DELETE']] as const) {
        const response = await server.request(method, `/apps/${encoded}`, body);
        expect(response.status, `${method} ${id}`).toBe(404);
        expect(response.body).toEqual(expected);
      }
      const variants = await server.request('GET', `/apps/${encoded}/variants`);
      expect(variants.status).toBe(404);
      expect(variants.body).toEqual(expected);
    }
  });

  it('answers 404 with a detail for an unknown route', async () => {
    const response = await server.request('GET', '/no/such/route');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not Found' });
  });
});
