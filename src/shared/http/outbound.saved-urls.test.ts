// URLs saved to be called later, an endpoint variant's `uri` and a webhook's `webhook_url`, are
// refused (422 naming the field) under the rule that refuses them when called
// (docs/access.md#outbound-calls), over HTTP: link-local (cloud metadata) always, and with auth on
// every address that is not public, in any spelling of it or through a name; ASSAY_OUTBOUND_ALLOW
// lists exceptions. With auth off a loopback endpoint is saved, as it is called.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../../test/helpers/server.js';

const KEY = 'saved-urls-test-key-0123456789abcdef';
const METADATA = ['http://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/', 'http://2852039166/', 'http://[fe80::1]/'];
let off: TestServer;
let on: TestServer;

const bearer = { authorization: `Bearer ${KEY}` };
const variant = (server: TestServer, appId: string, uri: string) =>
  server.request('POST', `/apps/${appId}/variants`, { variant_name: `v-${Math.random()}`, kind: 'endpoint', uri }, bearer);
const webhook = (server: TestServer, appId: string, webhook_url: string) =>
  server.request(
    'POST',
    '/evaluators/configs',
    { app_id: appId, name: `w-${Math.random()}`, evaluator_key: 'auto_webhook_test', settings_values: { webhook_url } },
    bearer,
  );
const appIn = async (server: TestServer) => (await server.request('POST', '/apps', { app_name: `app-${Math.random()}` }, bearer)).body.app_id as string;

beforeAll(async () => {
  off = await startServer();
  on = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY, ASSAY_OUTBOUND_ALLOW: '10.1.2.3, models.lan' });
});
afterAll(async () => {
  await off?.close();
  await on?.close();
});

describe('with auth off', () => {
  it('refuses link-local addresses (cloud metadata) as uri and webhook_url, naming the field, and saves loopback ones', async () => {
    const appId = await appIn(off);
    for (const url of METADATA) {
      const refused = await variant(off, appId, url);
      expect(refused.status, url).toBe(422);
      expect(refused.body.detail).toEqual([
        { loc: ['body', 'uri'], msg: expect.stringMatching(/was refused: it is a linkLocal address/), type: 'value_error' },
      ]);
      const hook = await webhook(off, appId, url);
      expect(hook.status, url).toBe(422);
      expect(hook.body.detail).toEqual([
        { loc: ['body', 'settings_values', 'webhook_url'], msg: expect.stringMatching(/was refused: it is a linkLocal address/), type: 'value_error' },
      ]);
    }
    expect((await variant(off, appId, 'http://127.0.0.1:9/generate')).status).toBe(200);
    expect((await variant(off, appId, 'http://localhost:9/generate')).status).toBe(200);
    expect((await webhook(off, appId, 'http://127.0.0.1:9/score')).status).toBe(200);
  });

  it('refuses a new revision or a changed webhook pointing there, over REST and GraphQL', async () => {
    const appId = await appIn(off);
    const saved = (await variant(off, appId, 'http://127.0.0.1:9/generate')).body;
    const revised = await off.request('PUT', `/variants/${saved.variant_id}/parameters`, { parameters: {}, uri: METADATA[0] });
    expect(revised.status).toBe(422);
    expect(revised.body.detail[0].loc).toEqual(['body', 'uri']);
    const config = (await webhook(off, appId, 'http://127.0.0.1:9/score')).body;
    const changed = await off.request('PUT', `/evaluators/configs/${config.id}`, { settings_values: { webhook_url: METADATA[0] } });
    expect(changed.status).toBe(422);
    expect(changed.body.detail[0].loc).toEqual(['body', 'settings_values', 'webhook_url']);
    const app = (await off.graphql('query { apps(first: 1) { edges { node { id } } } }')).data.apps.edges[0].node.id;
    const graphql = await off.graphql(
      'mutation ($app: ID!, $uri: String!) { createVariant(appId: $app, input: { variantName: "gql-metadata", kind: ENDPOINT, uri: $uri }) { id } }',
      { app, uri: METADATA[0] },
    );
    expect(graphql.errors?.[0]).toMatchObject({ message: expect.stringContaining('linkLocal address'), extensions: { code: 'BAD_USER_INPUT' } });
  });
});

describe('with auth on', () => {
  it('refuses every address that is not public, and a name resolving to one; saves what ASSAY_OUTBOUND_ALLOW lists', async () => {
    const appId = await appIn(on);
    for (const url of [...METADATA, 'http://127.0.0.1:9/', 'http://localhost:9/', 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://[fd00::1]/']) {
      const refused = await variant(on, appId, url);
      expect(refused.status, url).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'uri']);
      expect((await webhook(on, appId, url)).status, url).toBe(422);
    }
    for (const url of ['http://10.1.2.3/generate', 'http://models.lan/generate', 'https://api.example.com/generate']) {
      const saved = await variant(on, appId, url);
      expect(saved.status, `${url}: ${saved.text}`).toBe(200);
    }
  });
});
