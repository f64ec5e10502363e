// The playground end to end (docs/playground.md), in headless Chromium against a real server whose
// provider is a local OpenAI-compatible server that streams: two revisions of a prompt variant
// opened side by side from the variant's page, their variable filled from a test case, both run
// with the answer shown while the provider is still answering, tokens, cost and latency shown;
// one edited, saved as a new revision and deployed, then fetched by environment over REST.
import { afterAll, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, screenshot, seriousViolations, watchedPage } from './helpers/browser.js';
import { createGate, startFakeOpenAI } from './helpers/endpoints.js';
import { createApp, createTestset, promptParameters } from './helpers/evaluations.js';

const held = createGate();
const provider = await startFakeOpenAI((body) => {
  const system = String(body.messages[0].content);
  const question = String(body.messages.at(-1).content);
  const oneWord = system.includes('one word');
  return {
    content: oneWord ? `Lima (asked: ${question})` : `The capital is Lima (asked: ${question})`,
    usage: { prompt_tokens: 20, completion_tokens: oneWord ? 3 : 9, total_tokens: oneWord ? 23 : 29 },
    // The one-word revision's answer waits after its first piece until the test has seen that piece on screen.
    ...(oneWord ? { afterFirstChunk: held.wait() } : {}),
  };
});
const suite = browserSuite({ OPENAI_API_KEY: 'sk-playground', OPENAI_BASE_URL: `${provider.base}/v1` });
afterAll(() => provider.close());

it.skipIf(!available)(
  'runs two revisions side by side, saves one edited as a new revision and deploys it',
  async () => {
    const { server } = suite;
    const projectId = ((await server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const appId = await createApp(server, 'playground-app');
    const variant = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'capitals', kind: 'prompt', parameters: promptParameters })).body;
    const sentence = { ...promptParameters, messages: [{ role: 'system', content: 'You answer in one sentence.' }, promptParameters.messages[1]] };
    await server.request('PUT', `/variants/${variant.variant_id}/parameters`, { parameters: sentence });
    const testset = await createTestset(server, [{ country: 'Peru', correct_answer: 'Lima' }], 'playground-capitals');

    const { context, page, consoleErrors } = await watchedPage(suite);
    await page.goto(`${server.baseUrl}/p/${projectId}/apps/${appId}/variants/${variant.variant_id}`);
    await page.getByRole('link', { name: 'Open v1 and v2 side by side in the playground' }).click();
    const first = page.getByRole('region', { name: 'capitals v1' });
    const second = page.getByRole('region', { name: 'capitals v2' });
    await first.waitFor();
    await second.waitFor();

    // The variable from a test case.
    await page.getByLabel('Test set').selectOption({ label: testset.name });
    const cases = page.getByLabel('Test case');
    await expect.poll(() => cases.locator('option').count(), { timeout: 15_000 }).toBe(2);
    await cases.selectOption({ index: 1 });
    await expect.poll(() => page.getByLabel('country', { exact: true }).inputValue()).toBe('Peru');

    await page.getByRole('button', { name: 'Run all' }).click();
    // The first piece is on screen while the provider still holds the rest: streamed, not buffered.
    const firstAnswer = page.getByLabel('Answer of capitals v1');
    await expect.poll(() => firstAnswer.innerText(), { timeout: 15_000 }).toBe('Lima ');
    held.open();
    await expect.poll(() => firstAnswer.innerText(), { timeout: 15_000 }).toBe('Lima (asked: Capital of Peru?)');
    await expect.poll(() => page.getByLabel('Answer of capitals v2').innerText(), { timeout: 15_000 }).toBe('The capital is Lima (asked: Capital of Peru?)');
    const figures = async (title: string) =>
      (
        await page
          .getByRole('list', { name: `Figures of ${title}` })
          .or(page.getByLabel(`Figures of ${title}`))
          .innerText()
      ).split('\n');
    await expect
      .poll(() => figures('capitals v2'), { timeout: 15_000 })
      .toEqual(expect.arrayContaining(['Tokens in', '20', 'Tokens out', '9', 'Cost', 'Latency']));
    expect((await figures('capitals v1')).join(' ')).toMatch(/Cost \$[0-9.e-]+ Latency \d+/);
    expect(provider.requests.map((request) => request.body.stream)).toEqual([true, true]);
    await screenshot(page, 'playground', { fullPage: true });

    // v2 edited, saved as v3 and deployed to production.
    await second.getByRole('textbox', { name: 'Message 1', exact: true }).fill('You answer in one short sentence.');
    await page.getByRole('region', { name: 'capitals v2 (edited)' }).waitFor();
    const edited = page.getByRole('region', { name: 'capitals v2 (edited)' });
    await edited.getByRole('button', { name: 'Save as v3' }).click();
    const third = page.getByRole('region', { name: 'capitals v3' });
    await third.getByText('Saved as v3.').waitFor();
    await third.getByLabel('Environment').selectOption('production');
    await third.getByRole('button', { name: 'Deploy v3' }).click();
    await third.getByText('v3 deployed to production.').waitFor();

    const deployed = await server.request('GET', `/apps/${appId}/environments/production/config`);
    expect(deployed.status).toBe(200);
    expect(deployed.body).toMatchObject({ variant_name: 'capitals', revision: 3, kind: 'prompt' });
    expect(deployed.body.parameters.messages[0]).toEqual({ role: 'system', content: 'You answer in one short sentence.' });
    expect(deployed.body.parameters).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2 });

    // Both runs were traced in the environment `playground`.
    const traces = (await server.request('GET', '/observability/traces?environment=playground')).body;
    expect(JSON.stringify(traces)).toContain('playground: capitals v1');
    expect(JSON.stringify(traces)).toContain('playground: capitals v2');

    expect(await seriousViolations(page)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  120_000,
);
