// Apps and variants over GraphQL: the same operations as REST, paged, with validation faults and
// not-found as codes with the REST detail, and parameter changes as revisions.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp, promptParameters } from '../../test/helpers/evaluations.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();

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
    const appId = await createApp(server, 'graphql-revisions');
    const variant = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'v', kind: 'prompt', parameters: promptParameters })).body;
    const updated = await server.graphql(
      `mutation($id: ID!, $input: UpdateVariantParametersInput!) { updateVariantParameters(id: $id, input: $input) { revision revisions { revision parameters } } }`,
      { id: globalId('Variant', variant.variant_id), input: { parameters: { ...promptParameters, top_p: 0.5 } } },
    );
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateVariantParameters.revision).toBe(2);
    expect(updated.data.updateVariantParameters.revisions.map((r: any) => r.parameters.top_p)).toEqual([undefined, 0.5]);
  });
});
