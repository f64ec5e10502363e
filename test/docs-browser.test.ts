// /docs in a real browser: Swagger UI renders the document, and the page asks nothing of any host
// but the Assay that served it. Needs Debian's chromium (`apt-get install -y chromium`); skipped,
// and reported so, where it is absent.
import { expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, onlyFrom } from './helpers/browser.js';

const suite = browserSuite();

it.skipIf(!available)(
  'renders every operation and makes no request off the loopback server',
  async () => {
    const context = await suite.browser!.newContext();
    const { served, offHost } = await onlyFrom(context, suite.server.baseUrl);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(`${suite.server.baseUrl}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
    // Swagger UI renders the operations near the viewport only: scroll through the page and
    // gather every operation block that shows on the way (each has an id of its own).
    const seen = new Set<string>();
    for (let step = 0; step < 400; step++) {
      for (const id of await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => block.id))) seen.add(id);
      const atBottom = await page.evaluate(() => {
        window.scrollBy(0, window.innerHeight / 2);
        return window.scrollY + window.innerHeight >= document.body.scrollHeight;
      });
      if (atBottom && step > 0) break;
      await page.waitForTimeout(50);
    }
    for (const id of await page.locator('.opblock').evaluateAll((blocks) => blocks.map((block) => block.id))) seen.add(id);
    const operations = seen.size;
    const document = (await suite.server.request('GET', '/openapi.json')).body;
    const documented = Object.values(document.paths as Record<string, object>).reduce((sum, item) => sum + Object.keys(item).length, 0);

    expect(operations).toBe(documented);
    expect(await page.locator('.info .title').first().innerText()).toContain('Assay');
    expect(served).toContain('GET /openapi.json');
    expect(offHost).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  },
  30_000,
);
