// The real Langfuse SDK's prompt management against Assay (docs/deployments.md#langfuse), as an
// app moving from Langfuse uses it: `prompt.create` of a text and a chat prompt, `prompt.get` by
// label and by version, labels moved with `prompt.update` by another client and the new version
// served to this one once its cache expires, and `compile` of the variables. Each prompt is an
// Assay app with its prompt variant; a label is a deployment, read back through Assay's REST.
import { LangfuseAPIError } from '@langfuse/core';
import { LangfuseClient } from '@langfuse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const KEY = 'langfuse-prompts-key-0123456789abcdefgh';
let server: TestServer;
let langfuse: LangfuseClient;
let other: LangfuseClient;

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY });
  const keys = { publicKey: 'pk-lf-from-langfuse', secretKey: KEY, baseUrl: server.baseUrl };
  langfuse = new LangfuseClient(keys);
  // A second app process: its `update` does not touch the first one's cache.
  other = new LangfuseClient(keys);
});

afterAll(async () => {
  await langfuse.shutdown();
  await other.shutdown();
  await server.close();
});

describe('@langfuse/client prompts against Assay', () => {
  it('creates a text prompt and compiles its variables', async () => {
    const created = await langfuse.prompt.create({
      name: 'greeting',
      prompt: 'Hello {{name}}, welcome to {{place}}!',
      config: { model: 'gpt-4o-mini', temperature: 0.2 },
      labels: ['production'],
      tags: ['onboarding'],
      commitMessage: 'first words',
    });
    expect(created).toMatchObject({ name: 'greeting', version: 1, type: 'text', labels: ['production', 'latest'], tags: ['onboarding'] });
    expect(created.config).toEqual({ model: 'gpt-4o-mini', temperature: 0.2 });
    expect(created.commitMessage).toBe('first words');

    const fetched = await langfuse.prompt.get('greeting', { type: 'text' });
    expect(fetched.version).toBe(1);
    expect(fetched.compile({ name: 'Ada', place: 'Assay' })).toBe('Hello Ada, welcome to Assay!');

    // The prompt is an app with its prompt variant, and its label a deployment.
    const [app] = (await server.request('GET', '/apps?app_name=greeting', undefined, { authorization: `Bearer ${KEY}` })).body;
    const production = await server.request('GET', `/apps/${app.app_id}/environments/production/config`, undefined, { authorization: `Bearer ${KEY}` });
    expect(production.body).toMatchObject({ variant_name: 'greeting', kind: 'prompt', revision: 1 });
    expect(production.body.parameters.messages).toEqual([{ role: 'user', content: 'Hello {{name}}, welcome to {{place}}!' }]);
  });

  it('creates a chat prompt and reads it by label and by version', async () => {
    const messages = [
      { role: 'system', content: 'You answer questions about {{topic}}.' },
      { role: 'user', content: '{{question}}' },
    ];
    const first = await langfuse.prompt.create({ name: 'support', type: 'chat', prompt: messages, config: { model: 'gpt-4o' }, labels: ['staging'] });
    expect(first).toMatchObject({ version: 1, type: 'chat', labels: ['staging', 'latest'] });
    const second = await langfuse.prompt.create({
      name: 'support',
      type: 'chat',
      prompt: [{ role: 'system', content: 'Be brief about {{topic}}.' }, messages[1]],
      config: { model: 'gpt-4o', max_tokens: 100 },
    });
    expect(second).toMatchObject({ version: 2, labels: ['latest'] });

    const staging = await langfuse.prompt.get('support', { type: 'chat', label: 'staging' });
    expect(staging.version).toBe(1);
    expect(staging.compile({ topic: 'orders', question: 'Where is it?' })).toEqual([
      { role: 'system', content: 'You answer questions about orders.' },
      { role: 'user', content: 'Where is it?' },
    ]);
    const byVersion = await langfuse.prompt.get('support', { type: 'chat', version: 2 });
    expect(byVersion.config).toEqual({ model: 'gpt-4o', max_tokens: 100 });
    expect((await langfuse.prompt.get('support', { type: 'chat', label: 'latest' })).version).toBe(2);

    // Nothing is labelled production yet: Langfuse's 404.
    const missing = await langfuse.prompt.get('support', { type: 'chat' }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(LangfuseAPIError);
    expect((missing as LangfuseAPIError).statusCode).toBe(404);
  });

  it('serves the version a label moved to once the cache expires', async () => {
    await langfuse.prompt.create({ name: 'faq', prompt: 'v1 about {{x}}', config: { model: 'gpt-4o-mini' }, labels: ['production'] });
    await langfuse.prompt.create({ name: 'faq', prompt: 'v2 about {{x}}', config: { model: 'gpt-4o-mini' } });
    const cached = await langfuse.prompt.get('faq', { cacheTtlSeconds: 1 });
    expect(cached.version).toBe(1);

    const moved = await other.prompt.update({ name: 'faq', version: 2, newLabels: ['production'] });
    expect(moved).toMatchObject({ version: 2, labels: ['production', 'latest'] });
    // Still cached: the first client has not asked again.
    expect((await langfuse.prompt.get('faq', { cacheTtlSeconds: 1 })).version).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // An expired entry is answered while it is refreshed in the background, then replaced.
    let served = await langfuse.prompt.get('faq', { cacheTtlSeconds: 1 });
    for (let tries = 0; served.version !== 2 && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      served = await langfuse.prompt.get('faq', { cacheTtlSeconds: 1 });
    }
    expect(served.version).toBe(2);
    expect(served.compile({ x: 'refunds' })).toBe('v2 about refunds');
    expect((await langfuse.prompt.get('faq', { version: 1 })).labels).toEqual([]);
  });

  it('lists prompts through its api client', async () => {
    const listed = await langfuse.api.prompts.list({ label: 'production' });
    expect(listed.data.map((prompt) => prompt.name)).toEqual(['faq', 'greeting']);
    expect(listed.data[0]).toMatchObject({ type: 'text', versions: [1, 2], labels: expect.arrayContaining(['production', 'latest']) });
    expect((await langfuse.api.prompts.list({ tag: 'onboarding' })).data.map((prompt) => prompt.name)).toEqual(['greeting']);
  });
});
