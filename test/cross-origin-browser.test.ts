// Pages of other origins in a real browser (docs/access.md#browsers): a page from another site
// cannot read Assay's data nor change it, by fetch (with or without a preflight) or by a form;
// a page of an origin in ASSAY_CORS_ORIGINS can do both. Assay runs with auth off, as on a
// developer's machine, and with auth on and a signed-in browser, whose cookie a page of another
// port of the same host (the same site, so the cookie goes along) cannot use. Every page and request stays on loopback (127.0.0.1 and 127.0.0.2).
// Needs Debian's chromium (`apt-get install -y chromium`); skipped, and reported so, where absent.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromiumAvailable as available, launchChromium, loopbackOnly, openPage, pageServers } from './helpers/browser.js';
import { startServer, type TestServer } from './helpers/server.js';

let assay: TestServer;
let browser: Browser | undefined;
let context: BrowserContext;
const pages = pageServers();
let allowedOrigin: string;
let otherOrigin: string;

beforeAll(async () => {
  // The allowed origin must be known before Assay starts: its port is taken first.
  allowedOrigin = await pages.start('127.0.0.1');
  otherOrigin = await pages.start('127.0.0.2');
  assay = await startServer({ ASSAY_CORS_ORIGINS: allowedOrigin });
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

/** Runs fetch in `page`; its status and text, or the error that the browser gave instead. */
function pageFetch(
  page: Page,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; mode?: 'no-cors'; credentials?: 'include' } = {},
) {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        return { status: response.status, type: response.type, text: await response.text() };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { url, init },
  );
}

async function appNames(): Promise<string[]> {
  return ((await assay.request('GET', '/apps')).body as { app_name: string }[]).map((app) => app.app_name);
}

it.skipIf(!available)(
  'a page of another site reads nothing and changes nothing, by fetch or by form',
  async () => {
    const page = await open(otherOrigin);
    await assay.request('POST', '/apps', { app_name: 'secret-app' });

    const read = await pageFetch(page, `${assay.baseUrl}/apps`);
    expect(read).toEqual({ error: expect.stringContaining('Failed to fetch') });
    const graphqlRead = await pageFetch(page, `${assay.baseUrl}/graphql?query=${encodeURIComponent('{ apps { edges { node { name } } } }')}`);
    expect(graphqlRead).toEqual({ error: expect.stringContaining('Failed to fetch') });
    // JSON needs a preflight, which is refused; text/plain and no-cors go without one and are refused by the server.
    const json = await pageFetch(page, `${assay.baseUrl}/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"app_name":"csrf-json"}',
    });
    expect(json).toEqual({ error: expect.stringContaining('Failed to fetch') });
    const plain = await pageFetch(page, `${assay.baseUrl}/apps`, {
      method: 'POST',
      mode: 'no-cors',
      headers: { 'content-type': 'text/plain' },
      body: '{"app_name":"csrf-plain"}',
    });
    expect(plain).toMatchObject({ type: 'opaque' });
    const mutation = JSON.stringify({ query: 'mutation { createApp(input: {appName: "csrf-graphql"}) { id } }' });
    await pageFetch(page, `${assay.baseUrl}/graphql`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: mutation });

    // The classic form: a text/plain body whose one field spells out JSON.
    await page.setContent(`<form method="POST" enctype="text/plain" action="${assay.baseUrl}/apps">
      <input name='{"app_name":"csrf-form","x":"' value='"}'><button>go</button></form>`);
    const [navigation] = await Promise.all([page.waitForNavigation(), page.click('button')]);
    expect(navigation?.status()).toBe(403);
    expect(await page.innerText('body')).toContain('ASSAY_CORS_ORIGINS');

    const names = await appNames();
    expect(names).toContain('secret-app');
    for (const name of ['csrf-json', 'csrf-plain', 'csrf-graphql', 'csrf-form']) expect(names).not.toContain(name);
    await page.close();
  },
  60_000,
);

it.skipIf(!available)(
  'a page of an origin in ASSAY_CORS_ORIGINS reads and changes data through REST and GraphQL',
  async () => {
    const page = await open(allowedOrigin);
    const created = await pageFetch(page, `${assay.baseUrl}/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"app_name":"allowed-app"}',
    });
    expect(created).toMatchObject({ status: 200 });
    const listed = await pageFetch(page, `${assay.baseUrl}/apps`);
    expect(listed).toMatchObject({ status: 200, text: expect.stringContaining('allowed-app') });
    const mutation = JSON.stringify({ query: 'mutation { createApp(input: {appName: "allowed-graphql"}) { id name } }' });
    const graphql = await pageFetch(page, `${assay.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: mutation });
    expect(graphql).toMatchObject({ status: 200, text: expect.stringContaining('"allowed-graphql"') });
    expect(await appNames()).toEqual(expect.arrayContaining(['allowed-app', 'allowed-graphql']));
    await page.close();
  },
  60_000,
);

it.skipIf(!available)(
  "with auth on, a signed-in browser's cookie changes nothing from a page of another port of the same site; the allowed origin acts as the user",
  async () => {
    const admin = { email: 'admin@example.com', password: 'a long enough password' };
    const signedIn = await startServer({
      ASSAY_AUTH: 'on',
      ASSAY_INIT_ADMIN_EMAIL: admin.email,
      ASSAY_INIT_ADMIN_PASSWORD: admin.password,
      ASSAY_CORS_ORIGINS: allowedOrigin,
    });
    try {
      const own = await open(`${signedIn.baseUrl}/healthz`);
      const json = { 'content-type': 'application/json' };
      expect(await pageFetch(own, `${signedIn.baseUrl}/auth/login`, { method: 'POST', headers: json, body: JSON.stringify(admin) })).toMatchObject({
        status: 200,
      });
      const cookie = (await context.cookies(signedIn.baseUrl)).find((one) => one.name === 'assay_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
      const asUser = { cookie: `assay_session=${cookie!.value}` };
      const names = async () => ((await signedIn.request('GET', '/apps', undefined, asUser)).body as { app_name: string }[]).map((app) => app.app_name);

      // Another port of 127.0.0.1: the same site, so the browser sends the cookie along.
      const page = await open(await pages.start('127.0.0.1'));
      const read = await pageFetch(page, `${signedIn.baseUrl}/apps`, { credentials: 'include' });
      expect(read).toEqual({ error: expect.stringContaining('Failed to fetch') });
      const plain = await pageFetch(page, `${signedIn.baseUrl}/apps`, {
        method: 'POST',
        mode: 'no-cors',
        credentials: 'include',
        headers: { 'content-type': 'text/plain' },
        body: '{"app_name":"csrf-session"}',
      });
      expect(plain).toMatchObject({ type: 'opaque' });
      await page.setContent(`<form method="POST" enctype="text/plain" action="${signedIn.baseUrl}/apps">
        <input name='{"app_name":"csrf-session-form","x":"' value='"}'><button>go</button></form>`);
      const [navigation] = await Promise.all([page.waitForNavigation(), page.click('button')]);
      expect(navigation?.status()).toBe(403);

      // The allowed origin, with credentials, acts as the signed-in user.
      const allowed = await open(allowedOrigin);
      const created = await pageFetch(allowed, `${signedIn.baseUrl}/apps`, {
        method: 'POST',
        credentials: 'include',
        headers: json,
        body: '{"app_name":"by-session"}',
      });
      expect(created).toMatchObject({ status: 200 });
      const listed = await names();
      expect(listed).toContain('by-session');
      for (const name of ['csrf-session', 'csrf-session-form']) expect(listed).not.toContain(name);
      await Promise.all([own.close(), page.close(), allowed.close()]);
    } finally {
      await signedIn.close();
    }
  },
  60_000,
);
