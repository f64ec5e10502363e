// bench/ui-first-screen: the trace list's first screen in headless Chromium against the service as
// `npm start` runs it (docs/ui.md#measurements), each load in a new browser context (nothing
// cached). Printed per network: the page's requests (all, scripts and styles, GraphQL), the bytes
// of script and style sent (as transferred, so compressed where the server compresses), when the
// list's GraphQL query was sent, and navigation to the first row of the table. Two networks: the
// loopback as it is, and one throttled by Chromium to 10 Mbit/s down with 40 ms of latency.
// Run: npx tsx bench/ui-first-screen.ts [loads]
import type { Browser } from 'playwright-core';
import { agentTrace, endOrder, hexId, otlpProtobufBody, postOtlpBodies } from '../test/helpers/otlp-trace.js';
import { launchChromium } from '../test/helpers/browser.js';
import { percentile, startService } from './support/measure.js';

const LOADS = Number(process.argv[2] ?? 5);
const TRACES = 60;
const networks = [
  { name: 'loopback', conditions: null },
  { name: '10 Mbit/s, 40 ms', conditions: { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 5e6 / 8 } },
];

interface Load {
  requests: number;
  assets: number;
  graphql: number;
  assetBytes: number;
  querySent: number;
  firstRow: number;
}

async function load(browser: Browser, url: string, conditions: (typeof networks)[number]['conditions']): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  if (conditions) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', conditions);
  }
  await page.addInitScript(() => {
    const marks = window as unknown as { firstRow?: number };
    const observer = new MutationObserver(() => {
      if (document.querySelector('table.traces tbody tr')) {
        marks.firstRow = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(document, { childList: true, subtree: true });
  });
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { firstRow?: number }).firstRow !== undefined, undefined, { timeout: 60_000 });
  // As text: tsx would wrap named functions in a helper the page does not have.
  const result = await page.evaluate<Load>(`(() => {
    const entries = performance.getEntriesByType('resource');
    const assets = entries.filter((entry) => entry.name.includes('/assets/'));
    const graphql = entries.filter((entry) => entry.name.endsWith('/graphql'));
    return {
      requests: entries.length + 1,
      assets: assets.length,
      graphql: graphql.length,
      assetBytes: assets.reduce((sum, entry) => sum + entry.transferSize, 0),
      querySent: Math.min(...graphql.map((entry) => entry.requestStart)),
      firstRow: window.firstRow,
    };
  })()`);
  await context.close();
  return result;
}

const service = await startService({ OTLP_GRPC_PORT: '0' });
const browser = await launchChromium();
try {
  const bodies = Array.from({ length: TRACES }, (_, i) =>
    otlpProtobufBody(endOrder(agentTrace(hexId(0x0f125000 + i, 16), { agents: 2, steps: 3, calls: 2, tools: 1 })), 'bench'),
  );
  const statuses = await postOtlpBodies(`${service.baseUrl}/v1/traces`, bodies, 2);
  if (statuses.some((status) => status !== 200)) throw new Error(`ingest answered ${statuses.join(',')}`);
  const projects = (await (await fetch(`${service.baseUrl}/projects`)).json()) as { id: string; name: string }[];
  const url = `${service.baseUrl}/p/${projects.find((project) => project.name === 'default')!.id}/traces`;
  await load(browser, url, null);
  for (const { name, conditions } of networks) {
    const loads: Load[] = [];
    for (let i = 0; i < LOADS; i++) loads.push(await load(browser, url, conditions));
    const [first] = loads;
    const sorted = (pick: (run: Load) => number) => loads.map(pick).sort((a, b) => a - b);
    const firstRows = sorted((run) => run.firstRow);
    const sent = sorted((run) => run.querySent);
    console.log(`${name} (${LOADS} cold loads):`);
    console.log(
      `  requests ${first.requests} (${first.assets} scripts and styles, ${first.graphql} GraphQL), script and style ${(first.assetBytes / 1024).toFixed(1)} KiB transferred`,
    );
    console.log(
      `  the list's query sent at p50 ${percentile(sent, 0.5).toFixed(0)} ms; first row at p50 ${percentile(firstRows, 0.5).toFixed(0)} ms (${firstRows[0].toFixed(0)}–${firstRows.at(-1)!.toFixed(0)} ms)`,
    );
  }
} finally {
  await browser.close();
  await service.stop();
}
