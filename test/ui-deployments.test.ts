// The app page's environments panel end to end (docs/deployments.md), in headless Chromium against
// a real server: what each environment serves after deployments through the API, a rollback
// shown as it happened, a link to the deployed variant, and no serious accessibility violation.
import { expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, seriousViolations, watchedPage } from './helpers/browser.js';
import { createApp, promptParameters } from './helpers/evaluations.js';

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
