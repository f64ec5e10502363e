// Headless Debian chromium for the browser tests, with every request off the server under test
// refused and counted. Tests using it skip, and say so, where /usr/bin/chromium is absent
// (`apt-get install -y chromium`).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type TestServer } from './server.js';

const CHROMIUM = '/usr/bin/chromium';
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const chromiumAvailable = existsSync(CHROMIUM);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Servers of one empty page each, as other web sites would be: `start(host)` answers its origin
 * (`port` 0: any free one), `closeAll()` closes every one started.
 */
export function pageServers() {
  const servers: Server[] = [];
  return {
    async start(host: string, port = 0): Promise<string> {
      const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>'));
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
      servers.push(server);
      return `http://${host}:${(server.address() as AddressInfo).port}`;
    },
    closeAll(): void {
      for (const server of servers) server.close();
    },
  };
}

/** Keeps every request of `context` on loopback (127.0.0.1 and 127.0.0.2): anything else is refused. */
export async function loopbackOnly(context: BrowserContext): Promise<void> {
  await context.route('**/*', (route) => (/^http:\/\/127\.0\.0\.[12]:/.test(route.request().url()) ? route.continue() : route.abort()));
}

/** A new page of `context` at `url`. */
export async function openPage(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

export interface Traffic {
  /** `METHOD /path` of each request to the server under test, in order. */
  served: string[];
  /** Full URLs of the requests to anywhere else, each refused. */
  offHost: string[];
}

/** Routes every request of `context`: the server's own continue, anything else is counted and refused. */
export async function onlyFrom(context: BrowserContext, origin: string): Promise<Traffic> {
  const traffic: Traffic = { served: [], offHost: [] };
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin) {
      traffic.served.push(`${route.request().method()} ${url.pathname}`);
      return route.continue();
    }
    traffic.offHost.push(url.href);
    return route.abort();
  });
  return traffic;
}

export interface BrowserSuite {
  server: TestServer;
  /** Undefined where chromium is absent (the tests skip). */
  browser: Browser | undefined;
}

/** One Assay (with `env`'s configuration) and one browser for a test file, started before its tests and closed after. */
export function browserSuite(env: Record<string, string> = {}): BrowserSuite {
  const suite = {} as BrowserSuite;
  beforeAll(async () => {
    suite.server = await startServer(env);
    if (chromiumAvailable) suite.browser = await launchChromium();
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  return suite;
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  traffic: Traffic;
  /** Console errors and uncaught exceptions on the page, which a test expects to stay empty. */
  consoleErrors: string[];
}

/**
 * A page in a new 1280×900 context of `suite`'s browser, its requests routed by onlyFrom and its
 * console errors collected.
 */
export async function watchedPage(suite: BrowserSuite): Promise<WatchedPage> {
  const context = await suite.browser!.newContext({ viewport: { width: 1280, height: 900 } });
  const traffic = await onlyFrom(context, suite.server.baseUrl);
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  return { context, page, traffic, consoleErrors };
}

/** Serious or critical axe violations on the page as it is now, as `rule: targets`. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP rightly refuses an injected <script>.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return results
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

const screenshots = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'screenshots');

/**
 * With UPDATE_SCREENSHOTS=1, writes the page as it is now to docs/screenshots/<name>.png, which
 * the README shows (`UPDATE_SCREENSHOTS=1 npm test -- test/ui`). Other runs leave the committed
 * pictures alone: they show times and ids, so every run would change them.
 */
export async function screenshot(page: Page, name: string, { fullPage = false } = {}): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage, animations: 'disabled', caret: 'hide' });
}
