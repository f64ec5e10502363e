// Headless Debian chromium for the browser tests, with every request off the server under test
// refused and counted. Tests using it skip, and say so, where /usr/bin/chromium is absent
// (`apt-get install -y chromium`).
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startServer, type TestServer } from './server.js';

const CHROMIUM = '/usr/bin/chromium';
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

/** One Assay and one browser for a test file, started before its tests and closed after. */
export function browserSuite(): BrowserSuite {
  const suite = {} as BrowserSuite;
  beforeAll(async () => {
    suite.server = await startServer();
    if (chromiumAvailable) suite.browser = await launchChromium();
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.close();
  });
  return suite;
}
