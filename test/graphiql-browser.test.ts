// GraphiQL in a real browser with every request off the loopback server refused and counted: the
// page loads from Assay alone (docs/graphql.md), a query typed into its editor runs, and the result
// is shown. Needs Debian's chromium (`apt-get install -y chromium`); skipped, and reported so, where
// it is absent.
import { expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, onlyFrom } from './helpers/browser.js';

const suite = browserSuite();

it.skipIf(!available)(
  'loads GraphiQL from the server alone, runs a typed query and shows its result',
  async () => {
    const created = await suite.server.request('POST', '/apps', { app_name: 'graphiql-offline' });
    expect(created.status).toBe(200);

    const context = await suite.browser!.newContext();
    // blob: workers do not pass through routing; everything else does.
    const { served, offHost } = await onlyFrom(context, suite.server.baseUrl);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${suite.server.baseUrl}/graphql`);
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.waitFor({ timeout: 20_000 });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    // Typed as a user would; the editor closes the braces it opens, so no closing brace is typed.
    await page.keyboard.type('{ apps(appName: "graphiql-offline") { edges { node { name');
    // The editor suggests fields from the schema it fetched (closed first), then runs the query
    // with its own shortcut: the suggestion list may lie over the run button.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    const response = page.locator('.graphiql-response');
    await expect.poll(async () => response.innerText(), { timeout: 15_000 }).toContain('graphiql-offline');

    const shown = await response.innerText();
    expect(shown).toContain('"name"');
    expect(shown).not.toContain('errors');
    expect(served[0]).toBe('GET /graphql');
    expect(served.filter((request) => request === 'POST /graphql').length).toBeGreaterThanOrEqual(1);
    expect(offHost).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  },
  60_000,
);
