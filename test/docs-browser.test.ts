// /docs in a real browser: Swagger UI renders the document, and the page asks nothing of any host
// but the Assay that served it. Needs Debian's chromium (`apt-get install -y chromium`); skipped,
// and reported so, where it is absent.
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

it.skipIf(!available)('renders every operation and makes no request off the loopback server', async () => {
  const context = await browser!.newContext();
  const offHost: string[] = [];
  const served: string[] = [];
  // Every request the page makes passes here: the server's own continue, anything else is
  // counted and refused.
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === server.baseUrl) {
      served.push(url.pathname);
      return route.continue();
    }
    offHost.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await page.goto(`${server.baseUrl}/docs`);
  await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
  const operations = await page.locator('.opblock').count();
  const document = (await server.request('GET', '/openapi.json')).body;
  const documented = Object.values(document.paths as Record<string, object>).reduce((sum, item) => sum + Object.keys(item).length, 0);

  expect(operations).toBe(documented);
  expect(await page.locator('.info .title').first().innerText()).toContain('Assay');
  expect(served).toContain('/openapi.json');
  expect(offHost).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
}, 30_000);
