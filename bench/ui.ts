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
// Then an evaluation's results table over 10,000 test cases (docs/ui.md#measurements): the API's own
// time for the same data (the table's pages of scenarios over HTTP, read whole, one after another
// as the page asks them), navigation to the first rows, End pressed until every row is loaded (a
// page comes as the reader nears the last row), frames while
// scrolling the table.
// Run: npx tsx bench/ui.ts [loads] [trace|evaluation]   (both parts when the second is absent)
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { agentTrace, chunks, endOrder, hexId, otlpProtobufBody, postOtlpBodies } from '../test/helpers/otlp-trace.js';
import { launchChromium } from '../test/helpers/browser.js';
import { percentile, serviceCaller, startProcess, startService } from './support/measure.js';

const LOADS = Number(process.argv[2] ?? 5);
const PARTS = process.argv[3] ? [process.argv[3]] : ['trace', 'evaluation'];
const SPANS = 50_000;
const CASES = 10_000;
const FRAMES = 300;

const ms = (value: number) => `${value.toFixed(0)} ms`;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

/** Frame times (requestAnimationFrame deltas) while `selector` scrolls `pixels` a frame, sorted. */
async function scrollFrames(page: Page, selector: string, pixels: number): Promise<number[]> {
  // As text: tsx would wrap named functions in a helper the page does not have.
  const deltas: number[] = await page.evaluate(`new Promise((resolve) => {
    const scroller = document.querySelector(${JSON.stringify(selector)});
    scroller.scrollTop = 0;
    const deltas = [];
    let last = performance.now();
    requestAnimationFrame(function frame(now) {
      deltas.push(now - last);
      last = now;
      scroller.scrollTop += ${pixels};
      if (deltas.length < ${FRAMES}) requestAnimationFrame(frame);
      else resolve(deltas.slice(1));
    });
  })`);
  return sorted(deltas);
}

function printFrames(name: string, times: number[]): void {
  console.log(
    `  frames while scrolling (${name}, ${times.length} frames): p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
  );
}

async function tracePage(browser: Browser): Promise<void> {
  const service = await startService({ OTLP_GRPC_PORT: '0' });
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

    // The API alone: the trace page's query (web/src/observability/TracePage.tsx), read whole.
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
    const steady = await scrollFrames(page, '.tree-scroller', 10 * 28);
    const fling = await scrollFrames(page, '.tree-scroller', 400 * 28);
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
    printFrames('steady scroll, 10 rows a frame', steady);
    printFrames('fling, 400 rows a frame', fling);
    console.log(`  service peak RSS: ${service.peakRssMb().toFixed(0)} MB`);
    await context.close();
  } finally {
    await service.stop();
  }
}

async function evaluationTable(browser: Browser): Promise<void> {
  const service = await startService();
  const endpoint = await startProcess(fileURLToPath(new URL('./support/endpoint.mjs', import.meta.url)));
  try {
    const call = serviceCaller(service.baseUrl);
    const rows = Array.from({ length: CASES }, (_, i) => ({
      country: `Country ${i}`,
      capital: `City ${i}`,
      correct_answer: `The capital of Country ${i} is City ${i}.`,
    }));
    const app = await call<{ app_id: string }>('POST', '/apps', { app_name: 'bench-ui' });
    const testset = await call<{ id: string }>('POST', '/testsets', { name: 'bench-ui', csvdata: rows });
    const configs: string[] = [];
    for (const [name, evaluator_key, settings_values] of [
      ['exact', 'auto_exact_match', {}],
      ['contains', 'auto_contains', { substring: 'capital' }],
    ] as const) {
      configs.push((await call<{ id: string }>('POST', '/evaluators/configs', { app_id: app.app_id, name, evaluator_key, settings_values })).id);
    }
    const variant = await call<{ variant_id: string }>('POST', `/apps/${app.app_id}/variants`, {
      variant_name: 'bench',
      kind: 'endpoint',
      uri: `http://127.0.0.1:${endpoint.port}/`,
    });
    const [evaluation] = await call<{ id: string }[]>('POST', '/evaluations', {
      app_id: app.app_id,
      variant_ids: [variant.variant_id],
      evaluators_configs: configs,
      testset_id: testset.id,
      rate_limit: { batch_size: 100, max_retries: 0, retry_delay: 0, delay_between_batches: 0 },
    });
    for (;;) {
      const status = await call<{ status: { value: string } }>('GET', `/evaluations/${evaluation.id}/status`);
      if (status.status.value.startsWith('EVALUATION_FINISHED')) break;
      if (/FAILED|CANCELLED/.test(status.status.value)) throw new Error(`the evaluation ended ${status.status.value}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const projects = await call<{ id: string; name: string }[]>('GET', '/projects');
    const projectId = projects.find((project) => project.name === 'default')!.id;

    // The API alone: the table's next-page query (web/src/evaluations/EvaluationResults.tsx), page
    // after page as the page asks. The artifact exists once the build (startService) has run relay-compiler.
    const artifactUrl = new URL('../web/src/__generated__/EvaluationResultsPaginationQuery.graphql.ts', import.meta.url).href;
    const artifact = ((await import(artifactUrl)) as { default: { params: { text: string } } }).default;
    const id = Buffer.from(`Evaluation:${evaluation.id}`).toString('base64');
    const allPages = async () => {
      const started = performance.now();
      let firstPage = 0;
      let after: string | null = null;
      let count = 0;
      let bytes = 0;
      for (;;) {
        const response: Response = await fetch(`${service.baseUrl}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: artifact.params.text, variables: { id, count: 100, cursor: after } }),
        });
        const text: string = await response.text();
        bytes += text.length;
        if (!firstPage) firstPage = performance.now() - started;
        type Page = { edges: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
        const page: Page = (JSON.parse(text) as { data: { node: { scenarios: { edges: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: string } } } } })
          .data.node.scenarios;
        count += page.edges.length;
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      if (count !== CASES) throw new Error(`the API answered ${count} scenarios`);
      return { firstPage, all: performance.now() - started, bytes };
    };
    await allPages();
    const apiRuns = [];
    for (let i = 0; i < 3; i++) apiRuns.push(await allPages());

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route('**/*', (route) => (route.request().url().startsWith(service.baseUrl) ? route.continue() : route.abort()));
    await context.addInitScript(() => {
      const marks = window as unknown as { firstRows?: number; allRows?: number };
      const observer = new MutationObserver(() => {
        if (marks.firstRows === undefined && document.querySelector('[role="row"][aria-rowindex="2"]')) marks.firstRows = performance.now();
        const keys = document.getElementById('results-keys');
        if (marks.firstRows !== undefined && keys && !keys.textContent?.includes('loaded')) {
          marks.allRows = performance.now();
          observer.disconnect();
        }
      });
      observer.observe(document, { childList: true, subtree: true, characterData: true });
    });
    const url = `${service.baseUrl}/p/${projectId}/evaluations/${evaluation.id}`;
    const loads: { firstRows: number; allRows: number }[] = [];
    let page: Page | undefined;
    for (let i = 0; i < LOADS; i++) {
      await page?.close();
      page = await context.newPage();
      await page.goto(url);
      await page.waitForFunction(() => (window as unknown as { firstRows?: number }).firstRows !== undefined, undefined, { timeout: 120_000 });
      // The reader goes to the end, again and again: each time near the last row loaded, the next page.
      await page.locator('.results-scroller').focus();
      while (!(await page.evaluate(() => (window as unknown as { allRows?: number }).allRows !== undefined))) {
        await page.keyboard.press('End');
        await page.waitForTimeout(20);
      }
      loads.push(
        await page.evaluate(() => {
          const marks = window as unknown as { firstRows: number; allRows: number };
          return { firstRows: marks.firstRows, allRows: marks.allRows };
        }),
      );
    }
    const rendered = await page!.locator('.results-scroller [role="row"]').count();
    const steady = await scrollFrames(page!, '.results-scroller', 10 * 52);
    const fling = await scrollFrames(page!, '.results-scroller', 400 * 52);

    console.log(
      `bench/ui: the results table of a ${CASES.toLocaleString('en-US')}-case evaluation (2 evaluators), ${LOADS} loads, Chromium ${browser.version()}`,
    );
    console.log(
      `  API alone (the table's ${CASES / 100} pages over HTTP, ${(apiRuns[0].bytes / 1e6).toFixed(1)} MB): first page ${apiRuns.map((run) => ms(run.firstPage)).join(', ')}; all pages ${apiRuns.map((run) => ms(run.all)).join(', ')}`,
    );
    console.log(
      `  navigation → first rows: first load (assets fetched) ${ms(loads[0].firstRows)}; cached loads ${loads
        .slice(1)
        .map((load) => ms(load.firstRows))
        .join(', ')}`,
    );
    console.log(`  navigation → every row loaded, End pressed every 20 ms: ${loads.map((load) => ms(load.allRows)).join(', ')}`);
    console.log(`  rows in the DOM: ${rendered} (of ${CASES.toLocaleString('en-US')})`);
    printFrames('steady scroll, 10 rows a frame', steady);
    printFrames('fling, 400 rows a frame', fling);
    console.log(`  service peak RSS: ${service.peakRssMb().toFixed(0)} MB`);
    await context.close();
  } finally {
    endpoint.child.kill('SIGTERM');
    await service.stop();
  }
}

const browser = await launchChromium();
try {
  if (PARTS.includes('trace')) await tracePage(browser);
  if (PARTS.includes('evaluation')) await evaluationTable(browser);
} finally {
  await browser.close();
}
