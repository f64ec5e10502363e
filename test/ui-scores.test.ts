// Scores in the web UI end to end (docs/ui.md#scores), in headless Chromium against a real Assay:
// a score config made under Admin, a trace and a span scored with the keyboard alone in the trace
// view, the span tree showing the span's score, then the trace list showing a column per score
// name by default (one hidden and shown again) and filtered by the score, from the server alone, accessibly. Needs Debian's chromium; skipped where absent.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, screenshot, seriousViolations, watchedPage } from './helpers/browser.js';
import { testTracer, type TestTracer } from './helpers/otel.js';

const suite = browserSuite();
let otel: TestTracer;

beforeAll(() => {
  otel = testTracer('proto', `${suite.server.baseUrl}/v1/traces`);
});
afterAll(() => otel?.shutdown());

/** A trace of an agent and one model call, its ids as the UI shows them. */
async function sendTrace(name: string): Promise<string> {
  const t0 = Date.now() - 1000;
  const root = otel.tracer.startSpan(name, { startTime: t0, attributes: { 'openinference.span.kind': 'AGENT', 'input.value': name } });
  const llm = otel.tracer.startSpan('chat gpt-4o-mini', { startTime: t0 + 10, attributes: { 'openinference.span.kind': 'LLM' } }, otel.under(root));
  llm.end(t0 + 300);
  root.end(t0 + 400);
  await otel.flush();
  return root.spanContext().traceId;
}

it.skipIf(!available)(
  'scores a trace and a span with the keyboard, then filters the list by the score and shows its column',
  async () => {
    const scored = await sendTrace('scored question');
    await sendTrace('unscored question');
    const correct = await suite.server.request('POST', '/score-configs', { name: 'correct', data_type: 'BOOLEAN', description: 'The answer is right' });
    expect(correct.status).toBe(200);
    expect((await suite.server.request('POST', '/score-configs', { name: 'quality', data_type: 'NUMERIC', min_value: 0, max_value: 10 })).status).toBe(200);
    const projectId = ((await suite.server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const { context, page, traffic, consoleErrors } = await watchedPage(suite);

    // Admin: a categorical config created in the form (its 422 first), then one archived.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/admin/scores`);
    await page.getByRole('cell', { name: 'The answer is right' }).waitFor();
    const create = page.getByRole('form', { name: 'New score config' });
    await create.getByLabel('Name').fill('tone');
    await create.getByLabel('Data type').selectOption('CATEGORICAL');
    await create.getByRole('button', { name: 'Create score config' }).click();
    await expect.poll(() => create.locator('.error-text').allInnerTexts()).not.toEqual([]);
    await create.getByLabel('Categories').fill('rude=0, fine=1, kind=2');
    await create.getByRole('button', { name: 'Create score config' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'tone' }).innerText()).toContain('rude=0, fine=1, kind=2');
    await page.getByRole('button', { name: 'Edit tone' }).click();
    const edit = page.getByRole('form', { name: 'Change the score config' });
    expect(await edit.getByLabel('Data type').count()).toBe(0);
    await edit.getByLabel('Description').fill('How the answer sounds');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'tone' }).innerText()).toContain('How the answer sounds');
    await page.getByRole('button', { name: 'Archive quality' }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'quality' }).innerText()).toContain('archived');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'score-configs');

    // The trace: its panel has the keys; the archived config is not offered.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/traces/${scored}`);
    const tracePanel = page.getByRole('region', { name: 'Scores of this trace' });
    await tracePanel.getByText('The keys score here.').waitFor();
    expect(await tracePanel.locator('.score-name').allInnerTexts()).toEqual(['correct', 'tone']);
    await page.keyboard.press('y');
    await expect.poll(() => tracePanel.getByRole('button', { name: 'True' }).getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('j');
    await page.keyboard.press('c');
    await page.keyboard.type('polite enough');
    await page.keyboard.press('Escape');
    await page.keyboard.press('3');
    await expect.poll(() => tracePanel.getByRole('button', { name: 'kind' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => tracePanel.locator('.score-row').nth(1).innerText()).toContain('kind · polite enough');

    // A span chosen with the tree's keys, the keys given to its panel with S, scored false.
    const tree = page.getByRole('tree', { name: 'Spans of the trace' });
    await tree.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const spanPanel = page.getByRole('region', { name: 'Scores of span chat gpt-4o-mini' });
    await spanPanel.waitFor();
    await page.keyboard.press('s');
    await spanPanel.getByText('The keys score here.').waitFor();
    await page.keyboard.press('n');
    await expect.poll(() => spanPanel.getByRole('button', { name: 'False' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => page.getByRole('treeitem', { name: /chat gpt-4o-mini/ }).innerText()).toContain('correct: False');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'trace-scores', { fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });

    const stored = await suite.server.request('GET', `/scores?trace_id=${scored}`);
    const rows = stored.body.scores as { target: string; name: string; string_value: string; comment: string | null; source: string }[];
    expect(rows.map((score) => [score.target, score.name, score.string_value, score.comment, score.source]).sort()).toEqual([
      ['span', 'correct', 'False', null, 'annotation'],
      ['trace', 'correct', 'True', null, 'annotation'],
      ['trace', 'tone', 'kind', 'polite enough', 'annotation'],
    ]);

    // The list filtered by the score: only the scored trace, with its column.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/traces`);
    await page.getByRole('link', { name: 'unscored question' }).waitFor();
    // By default a column per score name the page's traces have; one hidden goes into the URL.
    const defaultHeads = async () =>
      (await page.getByRole('table').getByRole('columnheader').allInnerTexts()).slice(-2).map((head) => head.replace(/[\s×]+/g, ' ').trim());
    await expect.poll(defaultHeads, { timeout: 15_000 }).toEqual(['Score correct', 'Score tone']);
    await page.getByRole('button', { name: 'Hide column tone' }).click();
    await page.waitForURL(/hide=tone/);
    await expect.poll(() => page.getByRole('columnheader', { name: /tone/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Show them' }).click();
    await page.getByRole('columnheader', { name: /tone/ }).waitFor();
    await page.getByRole('button', { name: 'Add a score filter' }).click();
    const filter = page.getByRole('group', { name: 'Score filter 1' });
    await filter.getByLabel('Score name').fill('tone');
    await filter.getByLabel('Condition').selectOption('anyOf');
    await filter.getByLabel('Labels (commas between)').fill('kind, fine');
    await page.getByLabel('Score columns').fill('correct');
    await page.getByLabel('Chart a score').fill('correct');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/scores=/);
    expect(new URL(page.url()).searchParams.get('scores')).toBe(JSON.stringify([{ name: 'tone', anyOf: ['kind', 'fine'] }]));
    await page.getByRole('columnheader', { name: 'Score tone' }).waitFor();
    expect(await page.getByRole('link', { name: 'unscored question' }).count()).toBe(0);
    const table = page.getByRole('table');
    expect(await defaultHeads()).toEqual(['Score correct', 'Score tone']);
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'scored question' }) });
    const cells = await row.getByRole('cell').allInnerTexts();
    // The trace's True and its span's False: the newest label, and how many.
    expect(cells.slice(-2)).toEqual([expect.stringMatching(/^(True|False) \(2\)$/), 'kind']);
    await expect.poll(() => page.locator('dl[aria-label="Scores over the filter"]').innerText()).toMatch(/tone\s+kind 100%, n=1/);
    // The chart plots the mean of `correct` (the trace's 1 and its span's 0) in its interval.
    expect(await page.getByRole('img', { name: /^Mean of correct per interval, from 0\.5 to 0\.5/ }).count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  60_000,
);
