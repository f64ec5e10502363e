// Deployments in the UI end to end (docs/deployments.md), in headless Chromium against a real
// server: the app page's environments panel after deployments through the API, a rollback shown
// as it happened, a link to the deployed variant; the variant page's deploy form with its
// confirmation, a new environment, a rollback from the history, and a revision's traces and two
// revisions' production figures side by side; no serious accessibility violation.
import { expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, seriousViolations, watchedPage } from './helpers/browser.js';
import { createApp, promptParameters } from './helpers/evaluations.js';
import { ingestSpans, legacySpan } from './helpers/spans.js';

const suite = browserSuite();

it.skipIf(!available)(
  "shows each environment's deployed variant and revision on the app page",
  async () => {
    const { server } = suite;
    const projectId = ((await server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const appId = await createApp(server, 'deployed-app');
    const variant = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'concise', kind: 'prompt', parameters: promptParameters })).body;
    await server.request('PUT', `/variants/${variant.variant_id}/parameters`, { parameters: { ...promptParameters, temperature: 1 } });
    await server.request('POST', `/apps/${appId}/environments/production/deploy`, { variant_id: variant.variant_id });
    await server.request('POST', `/apps/${appId}/environments/production/deploy`, { variant_id: variant.variant_id, revision: 1 });
    await server.request('POST', `/apps/${appId}/environments/staging/deploy`, { variant_id: variant.variant_id });

    const { context, page, consoleErrors } = await watchedPage(suite);
    await page.goto(`${server.baseUrl}/p/${projectId}/apps/${appId}`);
    const table = page.getByRole('table', { name: 'Environments' });
    await table.waitFor();
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows.map((row) => row.split('\t').slice(0, 3))).toEqual([
      ['development', 'nothing deployed', '–'],
      ['staging', 'concise', '2'],
      ['production', 'concise', '1'],
    ]);
    expect(await seriousViolations(page)).toEqual([]);
    await table.getByRole('link', { name: 'concise' }).first().click();
    await page.getByRole('heading', { name: 'concise' }).waitFor();
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  30_000,
);

it.skipIf(!available)(
  "deploys a revision from the variant page with a confirmation, rolls back from the history, and shows a revision's traces and production figures",
  async () => {
    const { server } = suite;
    const projectId = ((await server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const appId = await createApp(server, 'support-bot');
    const variant = (await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'answerer', kind: 'prompt', parameters: promptParameters })).body;
    await server.request('PUT', `/variants/${variant.variant_id}/parameters`, { parameters: { ...promptParameters, temperature: 1 } });
    // Production traffic naming each revision (docs/deployments.md#traces-of-a-revision): two of v1, one of v2.
    const traffic = [
      ['rev-1-a', 1, 2, 0.01],
      ['rev-1-b', 1, 4, 0.03],
      ['rev-2-a', 2, 1, 0.002],
    ] as const;
    for (const [trace, revision, seconds, cost] of traffic) {
      await ingestSpans(server, trace, [
        legacySpan(`${trace}-root`, null, 0, seconds, {
          name: `answer ${trace}`,
          spankind: 'llm',
          environment: 'production',
          variant_id: variant.variant_id,
          revision,
          cost,
          tokens: { prompt_tokens: 10, completion_tokens: 5 },
        }),
      ]);
    }

    const { context, page, consoleErrors } = await watchedPage(suite);
    await page.goto(`${server.baseUrl}/p/${projectId}/apps/${appId}/variants/${variant.variant_id}?from=1&to=2`);
    const where = page.getByRole('table', { name: 'Deployed where' });
    await where.waitFor();
    expect((await where.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').slice(0, 2))).toEqual([
      ['development', 'nothing deployed'],
      ['staging', 'nothing deployed'],
      ['production', 'nothing deployed'],
    ]);

    // Deploy v2 to production, then v1 to a new environment: each asks first.
    const form = page.getByRole('group', { name: 'Deploy a revision' });
    await form.getByLabel('Revision').selectOption('2');
    await form.getByRole('combobox', { name: /^Environment/ }).selectOption('production');
    await form.getByRole('button', { name: 'Deploy' }).click();
    await form.getByRole('group', { name: /Deploy answerer v2 to production\? Nothing is deployed there yet\./ }).waitFor();
    await form.getByRole('button', { name: 'Deploy v2' }).click();
    await where.getByRole('row', { name: /production\s+answerer v2/ }).waitFor();
    await form.getByLabel('Revision').selectOption('1');
    await form.getByRole('combobox', { name: /^Environment/ }).selectOption({ label: 'New environment…' });
    await form.getByLabel('New environment name').fill('canary');
    await form.getByRole('button', { name: 'Deploy' }).click();
    await form.getByRole('button', { name: 'Deploy v1' }).click();
    await where.getByRole('row', { name: /canary\s+answerer v1/ }).waitFor();
    const config = await server.request('GET', `/apps/${appId}/environments/canary/config`);
    expect(config.body).toMatchObject({ variant_name: 'answerer', revision: 1 });

    // Production moves to v1, then rolls back to v2 from its history.
    await form.getByRole('combobox', { name: /^Environment/ }).selectOption('production');
    await form.getByRole('button', { name: 'Deploy' }).click();
    await form.getByRole('group', { name: /It serves answerer v2 now\./ }).waitFor();
    await form.getByRole('button', { name: 'Deploy v1' }).click();
    await where.getByRole('row', { name: /production\s+answerer v1/ }).waitFor();
    const history = page.getByRole('table', { name: 'Deployment history' });
    const older = history.getByRole('row', { name: /production\s+answerer v2\s/ });
    await older.getByRole('button', { name: 'Roll back to v2' }).click();
    await older.getByRole('button', { name: 'Roll back production' }).click();
    await where.getByRole('row', { name: /production\s+answerer v2/ }).waitFor();
    const deployments = await server.request('GET', `/apps/${appId}/environments/production/deployments`);
    expect((deployments.body as { revision: number }[]).map((deployment) => deployment.revision)).toEqual([2, 1, 2]);
    expect(await history.locator('tbody tr').count()).toBe(4);
    // Only production's v1 is a revision it could roll back to now.
    expect(await history.getByRole('button', { name: /^Roll back to/ }).allInnerTexts()).toEqual(['Roll back to v1']);

    // The newest revision's traces and figures; then v1's.
    const v2 = page.getByRole('table', { name: 'Traces of v2' });
    await v2.waitFor();
    expect(await v2.locator('tbody tr').allInnerTexts()).toHaveLength(1);
    await expect.poll(() => page.locator('dl[aria-label="Traces of v2"]').innerText()).toMatch(/Traces\s+1\b/);
    await page.getByRole('combobox', { name: /^Show revision/ }).selectOption('1');
    const v1 = page.getByRole('table', { name: 'Traces of v1' });
    await v1.waitFor();
    expect(await v1.getByRole('link').allInnerTexts()).toEqual(['answer rev-1-b', 'answer rev-1-a']);
    const figures = await page.locator('dl[aria-label="Traces of v1"]').innerText();
    expect(figures).toMatch(/Traces\s+2\b/);
    expect(figures).toMatch(/Cost\s+\$0\.04/);
    expect(figures).toMatch(/Latency p95\s+4\.00 s/);

    // v1 and v2 side by side in production.
    const compare = page.getByRole('table', { name: 'Production: v1 and v2' });
    await compare.waitFor();
    const rows = await compare.locator('tbody tr').allInnerTexts();
    expect(rows.map((row) => row.split('\t'))).toEqual(
      expect.arrayContaining([
        ['Traces', '2', '1'],
        ['Cost', '$0.04', '$0.0020'],
        ['Tokens', '30', '15'],
        ['Latency p50', '2.00 s', '1.00 s'],
        ['Latency p95', '4.00 s', '1.00 s'],
      ]),
    );
    expect(await seriousViolations(page)).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  90_000,
);
