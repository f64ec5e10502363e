import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function createApp(name: string) {
  const response = await server.request('POST', '/apps', { app_name: name });
  expect(response.status).toBe(200);
  return response.body as { app_id: string; app_name: string };
}

const promptParameters = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'You answer in one word.' },
    { role: 'user', content: 'Capital of {country}?' },
  ],
  temperature: 0.2,
};

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
    const app = await createApp('prefixed');
    for (const path of [`/apps/${app.app_id}`, `/apps/${app.app_id}/`, `/api/apps/${app.app_id}`, `/api/apps/${app.app_id}/`]) {
      const response = await server.request('GET', path);
      expect(response.status, path).toBe(200);
      expect(response.body.app_name).toBe('prefixed');
    }
  });

  it('lists apps and filters them by name', async () => {
    await createApp('listed-a');
    await createApp('listed-b');
    const all = await server.request('GET', '/apps');
    expect(all.status).toBe(200);
    expect(all.body.map((app: { app_name: string }) => app.app_name)).toEqual(expect.arrayContaining(['listed-a', 'listed-b']));
    const one = await server.request('GET', '/apps?app_name=listed-b');
    expect(one.body).toHaveLength(1);
    expect(one.body[0].app_name).toBe('listed-b');
  });

  it('renames and deletes an app', async () => {
    const app = await createApp('before-rename');
    const renamed = await server.request('PATCH', `/apps/${app.app_id}`, { app_name: 'after-rename' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ app_id: app.app_id, app_name: 'after-rename' });
    expect((await server.request('DELETE', `/apps/${app.app_id}`)).status).toBe(204);
    expect((await server.request('GET', `/apps/${app.app_id}`)).body).toEqual({ detail: `App with id ${app.app_id} not found` });
  });

  it('refuses a duplicate name with 409', async () => {
    await createApp('twice');
    const response = await server.request('POST', '/apps', { app_name: 'twice' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({ detail: 'An app named twice already exists' });
    const other = await createApp('twice-2');
    const rename = await server.request('PATCH', `/apps/${other.app_id}`, { app_name: 'twice' });
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

describe('variants', () => {
  it('creates an endpoint variant with the documented shape', async () => {
    const app = await createApp('variants-endpoint');
    const response = await server.request('POST', `/apps/${app.app_id}/variants`, {
      variant_name: 'v1',
      kind: 'endpoint',
      uri: 'http://127.0.0.1:9/generate',
      parameters: { temperature: 0 },
    });
    expect(response.status).toBe(200);
    const variant = response.body;
    expect(Object.keys(variant).sort()).toEqual(
      ['app_id', 'created_at', 'kind', 'parameters', 'project_id', 'revision', 'updated_at', 'uri', 'variant_id', 'variant_name'].sort(),
    );
    expect(variant).toMatchObject({
      variant_name: 'v1',
      app_id: app.app_id,
      kind: 'endpoint',
      uri: 'http://127.0.0.1:9/generate',
      parameters: { temperature: 0 },
      revision: 1,
    });
    expect(variant.variant_id).toMatch(UUID7);
    expect(variant.project_id).toMatch(UUID7);
    expect(variant.created_at).toMatch(ISO);
  });

  it('creates a prompt variant and lists the variants of an app', async () => {
    const app = await createApp('variants-prompt');
    const created = await server.request('POST', `/apps/${app.app_id}/variants`, {
      variant_name: 'p1',
      kind: 'prompt',
      parameters: promptParameters,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ kind: 'prompt', uri: null, parameters: promptParameters, revision: 1 });
    const listed = await server.request('GET', `/apps/${app.app_id}/variants`);
    expect(listed.body).toEqual([created.body]);
    const read = await server.request('GET', `/variants/${created.body.variant_id}`);
    expect(read.body).toEqual(created.body);
  });

  it('validates every field of a variant and lists every fault', async () => {
    const app = await createApp('variants-invalid');
    const path = `/apps/${app.app_id}/variants`;
    const missing = await server.request('POST', path, {});
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ['body', 'variant_name'], msg: 'Field required', type: 'missing' },
      { loc: ['body', 'kind'], msg: 'Field required', type: 'missing' },
    ]);

    const badKind = await server.request('POST', path, { variant_name: 'x', kind: 'lambda' });
    expect(badKind.body.detail).toEqual([{ loc: ['body', 'kind'], msg: "Input should be 'endpoint' or 'prompt'", type: 'enum' }]);

    const endpointWithoutUri = await server.request('POST', path, { variant_name: 'x', kind: 'endpoint' });
    expect(endpointWithoutUri.body.detail).toEqual([{ loc: ['body', 'uri'], msg: 'Field required', type: 'missing' }]);

    const badUri = await server.request('POST', path, { variant_name: 'x', kind: 'endpoint', uri: 'ftp://host/x' });
    expect(badUri.body.detail).toEqual([{ loc: ['body', 'uri'], msg: "URL scheme should be 'http' or 'https'", type: 'url_scheme' }]);

    const badPrompt = await server.request('POST', path, {
      variant_name: 42,
      kind: 'prompt',
      parameters: { messages: [{ role: 'robot', content: 'hi' }, 'text'], temperature: 3, max_tokens: 1.5 },
    });
    expect(badPrompt.status).toBe(422);
    expect(badPrompt.body.detail).toEqual([
      { loc: ['body', 'variant_name'], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['body', 'parameters', 'model'], msg: 'Field required', type: 'missing' },
      {
        loc: ['body', 'parameters', 'messages', 0, 'role'],
        msg: "Input should be 'system', 'user', 'assistant', 'developer' or 'tool'",
        type: 'enum',
      },
      { loc: ['body', 'parameters', 'messages', 1], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' },
      { loc: ['body', 'parameters', 'temperature'], msg: 'Input should be less than or equal to 2', type: 'less_than_equal' },
      { loc: ['body', 'parameters', 'max_tokens'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float' },
    ]);
  });

  it('refuses a duplicate variant name within an app with 409', async () => {
    const app = await createApp('variants-dup');
    const body = { variant_name: 'same', kind: 'endpoint', uri: 'http://127.0.0.1:9/' };
    expect((await server.request('POST', `/apps/${app.app_id}/variants`, body)).status).toBe(200);
    const again = await server.request('POST', `/apps/${app.app_id}/variants`, body);
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('same');
  });

  it('makes each parameter change a new revision and keeps the old ones readable', async () => {
    const app = await createApp('variants-revisions');
    const created = (await server.request('POST', `/apps/${app.app_id}/variants`, { variant_name: 'p', kind: 'prompt', parameters: promptParameters })).body;
    const changed = { ...promptParameters, temperature: 0.9 };
    const updated = await server.request('PUT', `/variants/${created.variant_id}/parameters`, { parameters: changed });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ variant_id: created.variant_id, revision: 2, parameters: changed });

    const revisions = await server.request('GET', `/variants/${created.variant_id}/revisions`);
    expect(revisions.body.map((r: { revision: number }) => r.revision)).toEqual([1, 2]);
    expect(revisions.body[0]).toMatchObject({ variant_id: created.variant_id, revision: 1, parameters: promptParameters, uri: null });
    expect(Object.keys(revisions.body[0]).sort()).toEqual(['created_at', 'id', 'parameters', 'revision', 'uri', 'variant_id']);
    const first = await server.request('GET', `/variants/${created.variant_id}/revisions/1`);
    expect(first.body).toEqual(revisions.body[0]);

    const missing = await server.request('GET', `/variants/${created.variant_id}/revisions/7`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: `Revision with id ${created.variant_id}/7 not found` });
    const notInt = await server.request('GET', `/variants/${created.variant_id}/revisions/two`);
    expect(notInt.status).toBe(422);
    expect(notInt.body.detail).toEqual([
      { loc: ['path', 'revision'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
    ]);

    // A prompt must stay runnable: a revision without messages is refused and nothing changes.
    const broken = await server.request('PUT', `/variants/${created.variant_id}/parameters`, { parameters: { model: 'x' } });
    expect(broken.status).toBe(422);
    expect(broken.body.detail).toEqual([{ loc: ['body', 'parameters', 'messages'], msg: 'Field required', type: 'missing' }]);
    expect((await server.request('GET', `/variants/${created.variant_id}`)).body.revision).toBe(2);

    const noParameters = await server.request('PUT', `/variants/${created.variant_id}/parameters`, {});
    expect(noParameters.body.detail).toEqual([{ loc: ['body', 'parameters'], msg: 'Field required', type: 'missing' }]);
  });

  it('gives concurrent parameter changes distinct revisions', async () => {
    const app = await createApp('variants-concurrent');
    const created = (await server.request('POST', `/apps/${app.app_id}/variants`, { variant_name: 'e', kind: 'endpoint', uri: 'http://127.0.0.1:9/' })).body;
    const updates = await Promise.all(
      Array.from({ length: 5 }, (_, i) => server.request('PUT', `/variants/${created.variant_id}/parameters`, { parameters: { i } })),
    );
    expect(updates.map((u) => u.status)).toEqual([200, 200, 200, 200, 200]);
    const revisions = await server.request('GET', `/variants/${created.variant_id}/revisions`);
    expect(revisions.body.map((r: { revision: number }) => r.revision)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('deletes a variant, and deleting an app deletes its variants', async () => {
    const app = await createApp('variants-delete');
    const a = (await server.request('POST', `/apps/${app.app_id}/variants`, { variant_name: 'a', kind: 'endpoint', uri: 'http://127.0.0.1:9/' })).body;
    const b = (await server.request('POST', `/apps/${app.app_id}/variants`, { variant_name: 'b', kind: 'endpoint', uri: 'http://127.0.0.1:9/' })).body;
    expect((await server.request('DELETE', `/variants/${a.variant_id}`)).status).toBe(204);
    const gone = await server.request('GET', `/variants/${a.variant_id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: `Variant with id ${a.variant_id} not found` });
    expect((await server.request('DELETE', `/apps/${app.app_id}`)).status).toBe(204);
    expect((await server.request('GET', `/variants/${b.variant_id}`)).status).toBe(404);
    expect((await server.request('GET', `/variants/${b.variant_id}/revisions`)).status).toBe(404);
  });

  it('answers 404 for unknown variant ids on every variant route', async () => {
    const id = 'missing-variant';
    const expected = { detail: `Variant with id ${id} not found` };
    for (const [method, path, body] of [
      ['GET', `/variants/${id}`],
      ['PUT', `/variants/${id}/parameters`, { parameters: {} }],
      ['GET', `/variants/${id}/revisions`],
      ['GET', `/variants/${id}/revisions/1`],
      ['DELETE', `/variants/${id}`],
    ] as const) {
      const response = await server.request(method, path, body);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toEqual(expected);
    }
    const unknownApp = await server.request('POST', '/apps/nope/variants', { variant_name: 'x', kind: 'endpoint', uri: 'http://127.0.0.1:9/' });
    expect(unknownApp.status).toBe(404);
    expect(unknownApp.body).toEqual({ detail: 'App with id nope not found' });
  });
});

describe('apps and variants over GraphQL', () => {
  it('creates, reads and pages through the same operations as REST', async () => {
    const created = await server.graphql(`mutation($input: CreateAppInput!) { createApp(input: $input) { id databaseId name createdAt } }`, {
      input: { appName: 'graphql-app' },
    });
    expect(created.errors).toBeUndefined();
    const appId = created.data.createApp.id;
    expect(appId).toBe(globalId('App', created.data.createApp.databaseId));
    expect((await server.request('GET', `/apps/${created.data.createApp.databaseId}`)).body.app_name).toBe('graphql-app');

    for (const name of ['g1', 'g2', 'g3']) {
      const variant = await server.graphql(
        `mutation($app: ID!, $input: CreateVariantInput!) { createVariant(appId: $app, input: $input) { id name kind revision parameters } }`,
        { app: appId, input: { variantName: name, kind: 'PROMPT', parameters: promptParameters } },
      );
      expect(variant.errors).toBeUndefined();
      expect(variant.data.createVariant).toMatchObject({ name, kind: 'PROMPT', revision: 1, parameters: promptParameters });
    }
    const page = await server.graphql(
      `query($id: ID!) { app(id: $id) { variants(first: 2) { edges { cursor node { name } } pageInfo { hasNextPage endCursor } } } }`,
      { id: appId },
    );
    expect(page.data.app.variants.edges.map((e: any) => e.node.name)).toEqual(['g1', 'g2']);
    expect(page.data.app.variants.pageInfo.hasNextPage).toBe(true);
    const next = await server.graphql(
      `query($id: ID!, $after: String) { app(id: $id) { variants(first: 2, after: $after) { edges { node { name } } pageInfo { hasNextPage } } } }`,
      { id: appId, after: page.data.app.variants.pageInfo.endCursor },
    );
    expect(next.data.app.variants.edges.map((e: any) => e.node.name)).toEqual(['g3']);
    expect(next.data.app.variants.pageInfo.hasNextPage).toBe(false);
  });

  it("counts an app's variants whole, whatever the page, in one list of apps", async () => {
    const appIds: string[] = [];
    for (const [name, variants] of [
      ['counted-3', 3],
      ['counted-0', 0],
    ] as const) {
      const appId = (await server.request('POST', '/apps', { app_name: name })).body.app_id;
      appIds.push(appId);
      for (let index = 0; index < variants; index++) {
        await server.request('POST', `/apps/${appId}/variants`, { variant_name: `v${index}`, kind: 'prompt', parameters: promptParameters });
      }
    }
    const list = await server.graphql(`{ apps(first: 100) { edges { node { name variants(first: 1) { totalCount edges { node { name } } } } } } }`);
    expect(list.errors).toBeUndefined();
    const counted = list.data.apps.edges.map((edge: any) => edge.node).filter((app: any) => app.name.startsWith('counted-'));
    expect(counted).toEqual([
      { name: 'counted-3', variants: { totalCount: 3, edges: [{ node: { name: 'v0' } }] } },
      { name: 'counted-0', variants: { totalCount: 0, edges: [] } },
    ]);
    const read = `query($id: ID!, $after: String) { app(id: $id) { variants(first: 2, after: $after) { totalCount pageInfo { endCursor } } } }`;
    const first = await server.graphql(read, { id: globalId('App', appIds[0]) });
    const second = await server.graphql(read, { id: globalId('App', appIds[0]), after: first.data.app.variants.pageInfo.endCursor });
    expect([first.data.app.variants.totalCount, second.data.app.variants.totalCount]).toEqual([3, 3]);
    const variants = (await server.request('GET', `/apps/${appIds[0]}/variants`)).body;
    expect((await server.request('DELETE', `/variants/${variants[0].variant_id}`)).status).toBe(204);
    expect((await server.graphql(read, { id: globalId('App', appIds[0]) })).data.app.variants.totalCount).toBe(2);
  });

  it('reports validation faults and not-found with codes and the REST detail', async () => {
    const invalid = await server.graphql(`mutation { createApp(input: { appName: "" }) { id } }`);
    expect(invalid.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      detail: [{ loc: ['body', 'app_name'], msg: 'String should have at least 1 character', type: 'string_too_short' }],
    });
    const missing = await server.graphql(`query($id: ID!) { app(id: $id) { id } }`, { id: globalId('App', 'nope') });
    expect(missing.data.app).toBeNull();
    expect(missing.errors[0]).toMatchObject({ message: 'App with id nope not found', extensions: { code: 'NOT_FOUND' }, path: ['app'] });
  });

  it('updates parameters as a new revision and lists revisions', async () => {
    const app = await createApp('graphql-revisions');
    const variant = (await server.request('POST', `/apps/${app.app_id}/variants`, { variant_name: 'v', kind: 'prompt', parameters: promptParameters })).body;
    const updated = await server.graphql(
      `mutation($id: ID!, $input: UpdateVariantParametersInput!) { updateVariantParameters(id: $id, input: $input) { revision revisions { revision parameters } } }`,
      { id: globalId('Variant', variant.variant_id), input: { parameters: { ...promptParameters, top_p: 0.5 } } },
    );
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateVariantParameters.revision).toBe(2);
    expect(updated.data.updateVariantParameters.revisions.map((r: any) => r.parameters.top_p)).toEqual([undefined, 0.5]);
  });
});
