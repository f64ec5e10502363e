// A feedback key used by a web page in a real browser (docs/scores.md#feedback-keys): a page on an
// origin of ASSAY_CORS_ORIGINS sends a thumbs up with fetch (a preflighted request, since it
// carries the key) and reads the answer; it cannot read scores with the key; a page on another
// origin cannot send one at all. Auth is on; every page and request stays on loopback.
// Needs Debian's chromium (`apt-get install -y chromium`); skipped, and reported so, where absent.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumAvailable as available, launchChromium, loopbackOnly, openPage, pageServers } from './helpers/browser.js';
import { startServer, type TestServer } from './helpers/server.js';

const INIT_KEY = 'assay_feedback_browser_admin_key_0123456';

let assay: TestServer;
let browser: Browser | undefined;
let context: BrowserContext;
const pages = pageServers();
let allowedOrigin: string;
let otherOrigin: string;
let feedbackKey: string;

beforeAll(async () => {
  allowedOrigin = await pages.start('127.0.0.1');
  otherOrigin = await pages.start('127.0.0.2');
  assay = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: INIT_KEY, ASSAY_CORS_ORIGINS: allowedOrigin });
  const admin = { authorization: `Bearer ${INIT_KEY}` };
  const [project] = (await assay.request('GET', '/projects', undefined, admin)).body;
  feedbackKey = (await assay.request('POST', `/projects/${project.id}/api-keys`, { name: 'shop page', scopes: ['feedback'] }, admin)).body.key;
  if (!available) return;
  browser = await launchChromium();
  context = await browser.newContext();
  await loopbackOnly(context);
});

afterAll(async () => {
  await browser?.close();
  await assay?.close();
  pages.closeAll();
});

function open(origin: string): Promise<Page> {
  return openPage(context, origin);
}

/** What a page's feedback button does: fetch with the key; the status and body, or the browser's error. */
function fromPage(page: Page, url: string, key: string, method: string, body?: unknown) {
  return page.evaluate(
    async ({ url, key, method, body }) => {
      try {
        const response = await fetch(url, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url, key, method, body },
  );
}

async function storedScore(id: string) {
  return assay.request('GET', `/scores/${id}`, undefined, { authorization: `Bearer ${INIT_KEY}` });
}

it.skipIf(!available)(
  'a page on an allowed origin sends a thumbs up with a feedback key and reads the answer, but cannot read scores',
  async () => {
    const page = await open(allowedOrigin);
    const sent = await fromPage(page, `${assay.baseUrl}/scores`, feedbackKey, 'POST', {
      id: 'browser-thumbs',
      trace_id: 'answer-7',
      name: 'thumbs',
      value: true,
    });
    expect(sent).toMatchObject({ status: 200, body: { id: 'browser-thumbs', value: 1, source: 'api', author: { type: 'api_key' } } });
    expect((await storedScore('browser-thumbs')).body).toMatchObject({ trace_id: 'answer-7', string_value: 'True' });
    const changed = await fromPage(page, `${assay.baseUrl}/scores`, feedbackKey, 'POST', {
      id: 'browser-thumbs',
      trace_id: 'answer-7',
      name: 'thumbs',
      value: false,
    });
    expect(changed).toMatchObject({ status: 200, body: { value: 0 } });
    const read = await fromPage(page, `${assay.baseUrl}/scores?trace_id=answer-7`, feedbackKey, 'GET');
    expect(read).toEqual({ status: 403, body: { detail: 'This API key lacks the read scope' } });
    await page.close();
  },
  60_000,
);

it.skipIf(!available)(
  'a page on another origin cannot send a score with the key',
  async () => {
    const page = await open(otherOrigin);
    const sent = await fromPage(page, `${assay.baseUrl}/scores`, feedbackKey, 'POST', { id: 'elsewhere', trace_id: 'answer-7', name: 'thumbs', value: true });
    expect(sent).toEqual({ error: 'TypeError: Failed to fetch' });
    expect((await storedScore('elsewhere')).status).toBe(404);
    await page.close();
  },
  60_000,
);
