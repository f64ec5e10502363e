// Environments and deployments over GraphQL: the same operations as REST, an app's environments
// with what they serve, deploy and roll back with the history newest first, faults and not-found
// with the REST detail.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createApp, promptParameters } from '../../test/helpers/evaluations.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer();

const deploy = `mutation($app: ID!, $env: String!, $input: DeployInput!) {
  deploy(appId: $app, environment: $env, input: $input) { id name deployedAt revision { revision message } }
}`;

describe('deployments over GraphQL', () => {
  it('adds an environment, deploys, rolls back and reads the history', async () => {
    const appId = await createApp(server, 'graphql-deploy');
    const variant = (
      await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'v', kind: 'prompt', parameters: promptParameters, message: 'first' })
    ).body;
    await server.request('PUT', `/variants/${variant.variant_id}/parameters`, { parameters: { ...promptParameters, top_p: 0.5 } });
    const app = globalId('App', appId);
    const variantId = globalId('Variant', variant.variant_id);

    const qa = await server.graphql(`mutation($app: ID!) { createEnvironment(appId: $app, input: { name: "qa" }) { name revision { id } } }`, { app });
    expect(qa.data.createEnvironment).toEqual({ name: 'qa', revision: null });

    const latest = await server.graphql(deploy, { app, env: 'qa', input: { variantId } });
    expect(latest.errors).toBeUndefined();
    expect(latest.data.deploy).toMatchObject({ name: 'qa', revision: { revision: 2, message: null } });
    const rollback = await server.graphql(deploy, { app, env: 'qa', input: { variantId, revision: 1 } });
    expect(rollback.data.deploy.revision).toEqual({ revision: 1, message: 'first' });

    const read = await server.graphql(
      `query($id: ID!) { app(id: $id) { environments { name revision { revision } deployments(first: 5) { edges { node { actorType revision { revision } } } } } } }`,
      { id: app },
    );
    const environments = read.data.app.environments;
    expect(environments.map((env: any) => env.name)).toEqual(['development', 'staging', 'production', 'qa']);
    expect(environments[3].deployments.edges.map((edge: any) => edge.node.revision.revision)).toEqual([1, 2]);
    expect(environments[3].deployments.edges[0].node.actorType).toBe('SYSTEM');
    expect(environments[2].revision).toBeNull();

    const deleted = await server.graphql(`mutation($app: ID!) { deleteEnvironment(appId: $app, name: "qa") }`, { app });
    expect(deleted.errors).toBeUndefined();
    const kept = await server.graphql(`mutation($app: ID!) { deleteEnvironment(appId: $app, name: "production") }`, { app });
    expect(kept.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('reports faults and not-found with the REST detail', async () => {
    const appId = await createApp(server, 'graphql-deploy-faults');
    const app = globalId('App', appId);
    const bad = await server.graphql(`mutation($app: ID!) { createEnvironment(appId: $app, input: { name: "a b" }) { name } }`, { app });
    expect(bad.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', detail: [{ loc: ['body', 'name'] }] });
    const missing = await server.graphql(deploy, { app, env: 'production', input: { variantId: globalId('Variant', 'nope') } });
    expect(missing.errors[0]).toMatchObject({ message: 'Variant with id nope not found', extensions: { code: 'NOT_FOUND' } });
    const zero = await server.graphql(deploy, { app, env: 'production', input: { variantId: globalId('Variant', 'nope'), revision: 0 } });
    expect(zero.errors[0].extensions.detail[0].loc).toEqual(['body', 'revision']);
  });
});
