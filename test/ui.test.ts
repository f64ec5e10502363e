// The web UI end to end (docs/ui.md), in headless Chromium against a real Assay on loopback, with
// every request off the server refused and counted (none may happen): a trace sent with the
// OpenTelemetry SDK is listed, a second one appears live, the trace opens, a span selected with
// the mouse and one with the keyboard show their details, and axe finds no serious violation in
// light or dark. Needs Debian's chromium; skipped, and reported so, where it is absent.
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, screenshot, seriousViolations, watchedPage } from './helpers/browser.js';
import { testTracer, type TestTracer } from './helpers/otel.js';

const suite = browserSuite();
let otel: TestTracer;

beforeAll(() => {
  otel = testTracer('proto', `${suite.server.baseUrl}/v1/traces`, { 'deployment.environment': 'staging' });
});
afterAll(() => otel?.shutdown());

/** A trace as an instrumented app sends it: an agent, a model call with chat messages, a failing tool. */
async function sendTrace(name: string, question: string): Promise<void> {
  const { tracer } = otel;
  const under = (span: Span) => otel.under(span);
  // Explicit times (ms since the epoch), so the spans' order is the test's, not the clock's.
  const t0 = Date.now() - 1000;
  const root = tracer.startSpan(name, { startTime: t0, attributes: { 'openinference.span.kind': 'AGENT', 'input.value': question, 'user.id': 'ada' } });
  const llm: Span = tracer.startSpan(
    'chat gpt-4o-mini',
    {
      startTime: t0 + 10,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o-mini',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'Answer in one word.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': question,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'Paris',
        'llm.token_count.prompt': 21,
        'llm.token_count.completion': 1,
      },
    },
    under(root),
  );
  llm.end(t0 + 400);
  const tool = tracer.startSpan(
    'lookup capital',
    { startTime: t0 + 500, attributes: { 'openinference.span.kind': 'TOOL', 'tool.parameters': '{"country":"France"}' } },
    under(root),
  );
  tool.recordException(new RangeError('atlas offline'));
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'atlas offline' });
  tool.end(t0 + 600);
  root.end(t0 + 700);
  await otel.flush();
}

it.skipIf(!available)(
  'lists traces live, opens one, shows a span selected by mouse or keyboard, from the server alone, accessibly',
  async () => {
    await sendTrace('capital question', 'Capital of France?');
    const { context, page, traffic, consoleErrors } = await watchedPage(suite);
    const projectHeaders: (string | undefined)[] = [];
    page.on('request', (request) => request.url().endsWith('/graphql') && projectHeaders.push(request.headers()['x-assay-project']));

    // `/` opens the default project's traces.
    const response = await page.goto(`${suite.server.baseUrl}/`);
    expect(response!.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.waitForURL(/\/p\/[^/]+\/traces$/);
    const projectId = new URL(page.url()).pathname.split('/')[2];
    const first = page.getByRole('link', { name: 'capital question' });
    await first.waitFor();
    await expect.poll(() => page.locator('.metrics').innerText()).toMatch(/Traces\s+1\b/);
    await expect.poll(() => page.locator('.metrics').innerText()).toMatch(/Error rate\s+100%/);
    await page.getByText('Live', { exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'traces');

    // A trace stored while the list is open appears without a reload.
    await sendTrace('second question', 'Capital of Peru?');
    await page.getByRole('link', { name: 'second question' }).waitFor({ timeout: 10_000 });

    // Filters go into the URL and the API: only the first trace's text matches.
    await page.getByLabel('Text in inputs or outputs').fill('France');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/text=France/);
    await expect.poll(() => page.getByRole('link', { name: 'second question' }).count()).toBe(0);
    await first.waitFor();

    // The trace: its tree, a span chosen with the mouse shows its conversation and figures.
    await first.click();
    await page.waitForURL(/\/traces\/[0-9a-f]{32}$/);
    const tree = page.getByRole('tree', { name: 'Spans of the trace' });
    await tree.getByRole('treeitem').nth(2).waitFor();
    expect(await tree.getByRole('treeitem').count()).toBe(3);
    await tree.getByText('chat gpt-4o-mini').click();
    await page.waitForURL(/\?span=[0-9a-f]{16}$/);
    const details = page.locator('.span-details');
    await details.locator('.conversation').getByText('Capital of France?').waitFor();
    await screenshot(page, 'trace');
    expect(await details.locator('.message-role').allInnerTexts()).toEqual(['SYSTEM', 'USER', 'ASSISTANT']);
    const figures = await details.locator('.figures').innerText();
    expect(figures).toContain('gpt-4o-mini');
    expect(figures).toMatch(/22 \(21 in, 1 out\)/);
    expect(await seriousViolations(page)).toEqual([]);

    // The keyboard: into the tree, down to the failing tool, Enter; its exception is shown.
    await tree.focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await details.getByRole('heading', { name: 'lookup capital' }).waitFor();
    await details.locator('.exception p').getByText('RangeError: atlas offline').waitFor();

    // Search narrows the tree to matches and their ancestors.
    await page.getByRole('searchbox', { name: 'Search spans' }).fill('lookup');
    await expect.poll(() => tree.getByRole('treeitem').count()).toBe(2);

    // Dark, too, passes axe (contrast above all).
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);

    // Unknown screens and traces say so.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/traces/ffffffffffffffffffffffffffffffff`);
    await page.getByText('No such trace').waitFor();
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/nothing-here`);
    await page.getByText('No such page').waitFor();

    // `/` asks which projects there are, with none named; every screen of a project names it.
    expect(projectHeaders[0]).toBeUndefined();
    expect(projectHeaders.length).toBeGreaterThan(3);
    expect(new Set(projectHeaders.slice(1))).toEqual(new Set([projectId]));
    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  60_000,
);
