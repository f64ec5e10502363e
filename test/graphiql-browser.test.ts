// GraphiQL in a real browser with every request off the loopback server refused and counted: the
// page loads from Assay alone (docs/graphql.md), a query typed into its editor runs, and the result
// is shown. Needs Debian's chromium (`apt-get install -y chromium`); skipped, and reported so, where
// it is absent.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);

let server: TestServer;
let browser: Browser | undefined;
beforeAll(async () => {
  server = await startServer();
  if (available) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

it.skipIf(!available)('loads GraphiQL from the server alone, runs a typed query and shows its result', async () => {
  const created = await server.request('POST', '/apps', { app_name: 'graphiql-offline' });
  expect(created.status).toBe(200);

  const context = await browser!.newContext();
  const offHost: string[] = [];
  const served: string[] = [];
  // Every request the page makes passes here (blob: workers do not): the server's own continue,
  // anything else is counted and refused.
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === server.baseUrl) {
      served.push(`${route.request().method()} ${url.pathname}`);
      return route.continue();
    }
    offHost.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await page.goto(`${server.baseUrl}/graphql`);
  const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
  await editor.waitFor({ timeout: 20_000 });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  // Typed as a user would; the editor closes the braces it opens, so no closing brace is typed.
  await page.keyboard.type('{ apps(app_name: "graphiql-offline") { edges { node { name');
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
}, 60_000);
