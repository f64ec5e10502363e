// The variant routes over HTTP: endpoint and prompt variants with their documented shape, every
// validation fault, 409 for a name taken, parameter changes as revisions (also concurrent), deletes.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp, promptParameters } from '../../test/helpers/evaluations.js';
import { ISO, UUID7 } from '../../test/helpers/contract.js';

const server = useTestServer();

describe('variants', () => {
  it('creates an endpoint variant with the documented shape', async () => {
    const appId = await createApp(server, 'variants-endpoint');
    const response = await server.request('POST', `/apps/${appId}/variants`, {
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
      app_id: appId,
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
    const appId = await createApp(server, 'variants-prompt');
    const created = await server.request('POST', `/apps/${appId}/variants`, {
      variant_name: 'p1',
      kind: 'prompt',
      parameters: promptParameters,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ kind: 'prompt', uri: null, parameters: promptParameters, revision: 1 });
    const listed = await server.request('GET', `/apps/${appId}/variants`);
    expect(listed.body).toEqual([created.body]);
    const read = await server.request('GET', `/variants/${created.body.variant_id}`);
    expect(read.body).toEqual(created.body);
  });

  it('validates every field of a variant and lists every fault', async () => {
    const appId = await createApp(server, 'variants-invalid');
    const path = `/apps/${appId}/variants`;
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
    const appId = await createApp(server, 'variants-dup');
    const body = { variant_name: 'same', kind: 'endpoint', uri: 'http://127.0.0.1:9/' };
    expect((await server.request('POST', `/apps/${appId}/variants`, body)).status).toBe(200);
    const again = await server.request('POST', `/apps/${appId}/variants`, body);
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain('same');
  });

  it('makes each parameter change a new revision and keeps the old ones readable', async () => {
    const appId = await createApp(server, 'variants-revisions');
    const created = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'p', kind: 'prompt', parameters: promptParameters })).body;
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
    const appId = await createApp(server, 'variants-concurrent');
    const created = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'e', kind: 'endpoint', uri: 'http://127.0.0.1:9/' })).body;
    const updates = await Promise.all(
      Array.from({ length: 5 }, (_, i) => server.request('PUT', `/variants/${created.variant_id}/parameters`, { parameters: { i } })),
    );
    expect(updates.map((u) => u.status)).toEqual([200, 200, 200, 200, 200]);
    const revisions = await server.request('GET', `/variants/${created.variant_id}/revisions`);
    expect(revisions.body.map((r: { revision: number }) => r.revision)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('deletes a variant, and deleting an app deletes its variants', async () => {
    const appId = await createApp(server, 'variants-delete');
    const a = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'a', kind: 'endpoint', uri: 'http://127.0.0.1:9/' })).body;
    const b = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'b', kind: 'endpoint', uri: 'http://127.0.0.1:9/' })).body;
    expect((await server.request('DELETE', `/variants/${a.variant_id}`)).status).toBe(204);
    const gone = await server.request('GET', `/variants/${a.variant_id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: `Variant with id ${a.variant_id} not found` });
    expect((await server.request('DELETE', `/apps/${appId}`)).status).toBe(204);
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
