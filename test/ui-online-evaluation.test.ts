// Online evaluation in the web UI end to end (docs/ui.md#online-evaluation), in headless Chromium
// against a real Assay: a rule made in the form (a refusal beside its field first, the live count
// of matching traces under a name and a span attribute filter, the mapping previewed on a real trace) with a regex evaluator, which needs
// no network; traces sent over OTLP scored as they arrive, the rule page following them live
// (through the evaluationRuleProgress subscription), a backfill over an earlier trace to its end,
// the rule edited, and the online score in the trace view with its rule linked. Needs Debian's chromium.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, screenshot, seriousViolations, watchedPage } from './helpers/browser.js';
import { createApp, createConfig } from './helpers/evaluations.js';
import { testTracer, type TestTracer } from './helpers/otel.js';

const suite = browserSuite();
let otel: TestTracer;

beforeAll(() => {
  otel = testTracer('proto', `${suite.server.baseUrl}/v1/traces`);
});
afterAll(() => otel?.shutdown());

/** A question and its answer as one agent span; the trace id as the UI shows it. */
async function sendTrace(question: string, answer: string, startTime = Date.now() - 1000): Promise<string> {
  const span = otel.tracer.startSpan(question, {
    startTime,
    attributes: { 'openinference.span.kind': 'AGENT', 'input.value': question, 'output.value': answer },
  });
  span.end(startTime + 200);
  await otel.flush();
  return span.spanContext().traceId;
}

it.skipIf(!available)(
  'makes a rule in the form, scores the traces that arrive and a backfilled one, and shows the online scores',
  async () => {
    const { server } = suite;
    const appId = await createApp(server, 'support-bot');
    await createConfig(server, appId, 'auto_regex_test', { regex_pattern: 'Paris', regex_should_match: true }, 'says-paris');
    // Sent before the rule exists: only a backfill reaches it; the form previews on it.
    const earlier = await sendTrace('capital question, earlier', 'Paris', Date.now() - 60_000);
    const projectId = ((await server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const { context, page, traffic, consoleErrors } = await watchedPage(suite);

    await page.goto(`${server.baseUrl}/p/${projectId}/online-evaluation`);
    await page.getByText('No rule yet').waitFor();
    await page.getByRole('link', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'Rule' });
    await form.getByLabel('Name', { exact: true }).fill('capitals');
    await form.getByLabel('Name contains').fill('capital');
    await expect.poll(() => form.getByRole('status').innerText(), { timeout: 20_000 }).toMatch(/^1 trace of the last 24 hours match/);
    await form.getByLabel('Name contains').fill('nothing like this');
    await expect.poll(() => form.getByRole('status').innerText(), { timeout: 20_000 }).toMatch(/^0 traces/);
    await form.getByLabel('Name contains').fill('capital');
    await expect.poll(() => form.getByRole('status').innerText(), { timeout: 20_000 }).toMatch(/^1 trace/);
    // A span attribute filter, among the folded ones: the trace's agent span matches, no tool span does.
    await form.getByText('More filters').click();
    await form.getByRole('button', { name: 'Add an attribute filter' }).click();
    const attribute = form.getByRole('group', { name: 'Attribute filter 1' });
    await attribute.getByLabel('Attribute key').fill('openinference.span.kind');
    await attribute.getByLabel('Attribute value').fill('TOOL');
    await expect.poll(() => form.getByRole('status').innerText(), { timeout: 20_000 }).toMatch(/^0 traces/);
    await attribute.getByLabel('Attribute value').fill('AGENT');
    await expect.poll(() => form.getByRole('status').innerText(), { timeout: 20_000 }).toMatch(/^1 trace/);
    await form.getByRole('combobox', { name: 'Evaluator config' }).selectOption({ label: 'says-paris (auto_regex_test, support-bot)' });
    // The preview runs the evaluator on the latest matching trace, storing nothing.
    await form.getByRole('button', { name: 'Preview' }).click();
    const preview = form.getByRole('region', { name: 'Preview result' });
    await expect.poll(() => preview.innerText(), { timeout: 20_000 }).toContain('The trace matches the filter.');
    expect(await preview.innerText()).toMatch(/Result:\s*true/);
    expect(await preview.locator('pre').innerText()).toContain('Paris');
    // The API's refusal beside its field.
    await form.getByLabel('Sampling rate').fill('0');
    await form.getByRole('button', { name: 'Create the rule' }).click();
    await expect.poll(() => form.getByLabel('Sampling rate').getAttribute('aria-invalid')).toBe('true');
    expect(await form.locator('.field-issue').allInnerTexts()).toEqual(['Input should be greater than 0']);
    await form.getByLabel('Sampling rate').fill('1');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'online-evaluation-form', { fullPage: true });
    await form.getByRole('button', { name: 'Create the rule' }).click();

    // The rule page, following the rule live.
    await page.getByRole('heading', { name: 'capitals' }).waitFor();
    const [rule] = (await server.request('GET', '/evaluation-rules')).body as { filter: unknown }[];
    expect(rule.filter).toEqual({ name_contains: 'capital', attributes: [{ key: 'openinference.span.kind', operator: 'equals', value: 'AGENT' }] });
    await expect.poll(() => page.locator('.live').innerText(), { timeout: 20_000 }).toBe('Live');
    const ruleUrl = page.url();
    const live = await sendTrace('capital question', 'Paris');
    await sendTrace('capital question, wrong', 'Lyon');
    await sendTrace('weather question', 'Sunny');
    const figures = page.locator('dl[aria-label="Jobs by status"]');
    await expect.poll(() => figures.innerText(), { timeout: 30_000 }).toMatch(/done\s+2\b/);

    // A backfill over the minute before: the earlier trace, planned and scored, its progress live.
    const backfills = page.getByRole('form', { name: 'New backfill' });
    const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    await backfills.getByLabel('Traces started from').fill(local(Date.now() - 5 * 60_000));
    await backfills.getByLabel('to', { exact: true }).fill(local(Date.now() - 30_000));
    await backfills.getByRole('button', { name: 'Start a backfill' }).click();
    const row = page.getByRole('table').filter({ hasText: 'planned' }).getByRole('row').nth(1);
    await expect.poll(() => row.innerText(), { timeout: 30_000 }).toMatch(/done[\s\S]*1 of 1 planned/);
    await expect.poll(() => figures.innerText(), { timeout: 30_000 }).toMatch(/done\s+3\b/);
    // The job list reads itself anew as the rule changes: the three traces that matched, all done.
    const jobs = page.getByRole('table', { name: "The rule's jobs, newest first" });
    await expect
      .poll(() => jobs.locator('tbody tr').allInnerTexts(), { timeout: 30_000 })
      .toEqual([expect.stringMatching(/^trace \w+\s+done/), expect.stringMatching(/^trace \w+\s+done/), expect.stringMatching(/^trace \w+\s+done/)]);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'online-evaluation-rule', { fullPage: true });

    // Edited: a refused limit beside its field, then one saved; a limit is no new version.
    await page.getByRole('link', { name: 'Edit' }).click();
    const edit = page.getByRole('form', { name: 'Rule' });
    await edit.getByLabel('Daily cost limit (USD)').fill('-1');
    await edit.getByRole('button', { name: 'Save the rule' }).click();
    await expect.poll(() => edit.getByLabel('Daily cost limit (USD)').getAttribute('aria-invalid')).toBe('true');
    await edit.getByLabel('Daily cost limit (USD)').fill('5');
    await edit.getByRole('button', { name: 'Save the rule' }).click();
    await page.waitForURL(ruleUrl);
    await expect.poll(() => page.locator('dl.rule-setup').innerText()).toMatch(/Daily cost limit\s+\$5\.00[\s\S]*Version\s+1/);

    // The list shows its health and counts.
    await page.getByRole('link', { name: 'Online evaluation' }).first().click();
    const listed = page.getByRole('row').filter({ hasText: 'capitals' });
    await expect.poll(() => listed.innerText()).toMatch(/Active[\s\S]*says-paris → says-paris\s+0\s+3\s+0\s+0\s+\$0/);

    // The score in the trace view, its rule linked.
    await page.goto(`${server.baseUrl}/p/${projectId}/traces/${live}`);
    const scores = page.getByRole('region', { name: 'Scores of this trace' });
    const online = scores.locator('.score-others li').filter({ hasText: 'says-paris' });
    await expect.poll(() => online.innerText(), { timeout: 20_000 }).toMatch(/says-paris True online, by its rule/);
    await online.getByRole('link', { name: 'its rule' }).click();
    await page.waitForURL(ruleUrl);
    const stored = await server.request('GET', `/scores?trace_id=${earlier}`);
    expect(stored.body.scores.map((score: { name: string; source: string; value: number }) => [score.name, score.source, score.value])).toEqual([
      ['says-paris', 'online', 1],
    ]);

    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  120_000,
);
