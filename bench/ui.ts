// bench/ui: the web UI's trace page on a trace of 50,000 spans, in headless Chromium against the
// service as `npm start` runs it (docs/ui.md#measurements). The trace goes in through the service's
// own OTLP ingest. Printed:
// - the API's own time for the data the page asks for (`trace { … outline { … } }` over HTTP,
//   the body read whole): the floor the page cannot beat;
// - navigation to the first rendered tree rows (a MutationObserver set before the page's scripts
//   notes when the first treeitem is in the DOM), and when the page's GraphQL answer had arrived,
//   so the UI's own share is visible; the first load fetches the assets, the others have them cached;
// - frame times while scrolling the tree (requestAnimationFrame deltas while the scroller moves a
//   fixed distance each frame): steady (10 rows a frame) and flinging (400 rows a frame).
// Run: npx tsx bench/ui.ts [loads]
import { agentTrace, chunks, endOrder, hexId, otlpProtobufBody, postOtlpBodies } from '../test/helpers/otlp-trace.js';
import { launchChromium } from '../test/helpers/browser.js';
import { startService } from './support/measure.js';

const LOADS = Number(process.argv[2] ?? 5);
const SPANS = 50_000;
const FRAMES = 300;

const percentile = (sorted: readonly number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const ms = (value: number) => `${value.toFixed(0)} ms`;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

const service = await startService({ OTLP_GRPC_PORT: '0' });
const browser = await launchChromium();
try {
  const traceId = hexId(0x0b1e5000, 16);
  const spans = endOrder(agentTrace(traceId, { agents: 40, steps: 48, calls: 20, tools: 6 }, SPANS));
  const statuses = await postOtlpBodies(
    `${service.baseUrl}/v1/traces`,
    chunks(spans, 1_000).map((batch) => otlpProtobufBody(batch, 'bench')),
    2,
  );
  if (statuses.some((status) => status !== 200)) throw new Error(`ingest answered ${statuses.join(',')}`);
  const projects = (await (await fetch(`${service.baseUrl}/projects`)).json()) as { id: string; name: string }[];
  const projectId = projects.find((project) => project.name === 'default')!.id;

  // The API alone: the trace page's query (web/src/traces/TracePage.tsx), read whole.
  const query = `query ($traceId: String!) { trace(traceId: $traceId) { id traceId name startTime latency spanCount errorCount cost status
    environment userId sessionId tokens { totalTokens } outline { spanIds parents names kinds statuses offsets latencies } } }`;
  const api = async () => {
    const started = performance.now();
    const response = await fetch(`${service.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: { traceId } }),
    });
    const body = await response.text();
    const elapsed = performance.now() - started;
    if (response.status !== 200 || !body.includes('"spanIds"')) throw new Error(`the API answered ${response.status}: ${body.slice(0, 200)}`);
    return {
      elapsed,
      bytes: body.length,
      spans: (JSON.parse(body) as { data: { trace: { outline: { spanIds: string[] } } } }).data.trace.outline.spanIds.length,
    };
  };
  const check = await api();
  if (check.spans !== SPANS) throw new Error(`the outline has ${check.spans} spans`);
  for (let i = 0; i < 3; i++) await api();
  const apiTimes: number[] = [];
  for (let i = 0; i < LOADS * 2; i++) apiTimes.push((await api()).elapsed);

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route('**/*', (route) => (route.request().url().startsWith(service.baseUrl) ? route.continue() : route.abort()));
  await context.addInitScript(() => {
    const marks = window as unknown as { firstRows?: number };
    const observer = new MutationObserver(() => {
      if (document.querySelector('[role="treeitem"]')) {
        marks.firstRows = performance.now();
        observer.disconnect();
      }
    });
    observer.observe(document, { childList: true, subtree: true });
  });
  const url = `${service.baseUrl}/p/${projectId}/traces/${traceId}`;
  const loads: { firstRows: number; sent: number; answered: number }[] = [];
  for (let i = 0; i < LOADS; i++) {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { firstRows?: number }).firstRows !== undefined, undefined, { timeout: 60_000 });
    loads.push(
      await page.evaluate(() => {
        // The trace's query is the largest GraphQL answer of the page.
        const [query] = performance
          .getEntriesByType('resource')
          .filter((entry): entry is PerformanceResourceTiming => entry.name.endsWith('/graphql'))
          .sort((a, b) => b.encodedBodySize - a.encodedBodySize);
        return { firstRows: (window as unknown as { firstRows: number }).firstRows, sent: query.requestStart, answered: query.responseEnd };
      }),
    );
    if (i < LOADS - 1) await page.close();
  }

  const page = context.pages().at(-1)!;
  const rows = await page.locator('[role="treeitem"]').count();
  // As text: tsx would wrap named functions in a helper the page does not have.
  const scroll = (rowsPerFrame: number): Promise<number[]> =>
    page.evaluate(`new Promise((resolve) => {
      const scroller = document.querySelector('.tree-scroller');
      scroller.scrollTop = 0;
      const deltas = [];
      let last = performance.now();
      requestAnimationFrame(function frame(now) {
        deltas.push(now - last);
        last = now;
        scroller.scrollTop += ${rowsPerFrame * 28};
        if (deltas.length < ${FRAMES}) requestAnimationFrame(frame);
        else resolve(deltas.slice(1));
      });
    })`);
  const steady = sorted(await scroll(10));
  const fling = sorted(await scroll(400));
  const rendered = await page.locator('[role="treeitem"]').count();

  const firstRows = loads.map((load) => load.firstRows);
  const uiShare = loads.map((load) => load.firstRows - load.answered);
  const apiSorted = sorted(apiTimes);
  console.log(`bench/ui: the trace page of a ${SPANS.toLocaleString('en-US')}-span trace, ${LOADS} loads, Chromium ${browser.version()}`);
  console.log(
    `  API alone (the page's query over HTTP, ${(check.bytes / 1e6).toFixed(1)} MB): p50 ${ms(percentile(apiSorted, 0.5))}, max ${ms(apiSorted.at(-1)!)}`,
  );
  console.log(`  navigation → first rows: first load (assets fetched) ${ms(firstRows[0])}; cached loads ${firstRows.slice(1).map(ms).join(', ')}`);
  console.log(
    `    the trace's query sent at ${loads.map((load) => ms(load.sent)).join(', ')}; answered at ${loads.map((load) => ms(load.answered)).join(', ')}`,
  );
  console.log(`    after the answer (parse, store, tree, render): ${uiShare.map(ms).join(', ')}`);
  console.log(`  rows in the DOM: ${rows} (of ${SPANS.toLocaleString('en-US')}), ${rendered} after scrolling`);
  for (const [name, times] of [
    ['steady scroll, 10 rows a frame', steady],
    ['fling, 400 rows a frame', fling],
  ] as const) {
    console.log(
      `  frames while scrolling (${name}, ${times.length} frames): p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
    );
  }
  console.log(`  service peak RSS: ${service.peakRssMb().toFixed(0)} MB`);
} finally {
  await browser.close();
  await service.stop();
}
