// The evaluation screens end to end (docs/ui.md#evaluations), in headless Chromium against a real
// Assay on loopback and a local endpoint app: an evaluation started in the form (a refused rate
// limit shown beside its field), followed live to its end, its aggregates and results table read,
// and a comparison of two read with its regressions first and a diff of outputs. Every request off
// the server is refused and counted (none may happen); axe finds no serious violation; each
// screen is saved to docs/screenshots/. Skipped, and reported so, where chromium is absent.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, onlyFrom } from './helpers/browser.js';
import { createGate, startEndpoint, type FakeEndpoint, type Gate } from './helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, startEvaluation, waitForStatus } from './helpers/evaluations.js';

const suite = browserSuite();
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const screenshots = new URL('../docs/screenshots/', import.meta.url).pathname;

// "good" answers every capital; "bad" gets Chile and Kenya wrong; Atlantis fails for both.
const capitals: Record<string, string> = { France: 'Paris', Peru: 'Lima', Chile: 'Santiago', Japan: 'Tokyo', Kenya: 'Nairobi', Atlantis: '?' };
let endpoint: FakeEndpoint;
let gate: Gate;
let appId: string;
let bad: string;
let testset: { id: string; name: string };
let exact: string;
let code: string;

beforeAll(async () => {
  gate = createGate();
  endpoint = await startEndpoint(async (request) => {
    const { inputs, parameters } = request.body as { inputs: { country: string }; parameters: { flavour: string } };
    if (parameters.flavour === 'good') await gate.wait();
    if (inputs.country === 'Atlantis') return { status: 500, body: 'sunk' };
    const wrong = parameters.flavour === 'bad' && ['Chile', 'Kenya'].includes(inputs.country);
    return { body: { message: wrong ? 'The capital is Rome' : `The capital is ${capitals[inputs.country]}`, cost: 0.0015, latency: 0.2 } };
  });
  if (!available) return;
  appId = await createApp(suite.server, 'capitals-app');
  await createEndpointVariant(suite.server, appId, endpoint.url, { name: 'good', parameters: { flavour: 'good' } });
  bad = (await createEndpointVariant(suite.server, appId, endpoint.url, { name: 'bad', parameters: { flavour: 'bad' } })).variant_id;
  const rows = Object.entries(capitals).map(([country, capital]) => ({ country, correct_answer: `The capital is ${capital}` }));
  testset = await createTestset(suite.server, rows, 'capitals');
  exact = (await createConfig(suite.server, appId, 'auto_exact_match', {}, 'exact')).id;
  // Throws on Peru's answer, so one cell shows an evaluator's error with its message.
  code = (
    await createConfig(
      suite.server,
      appId,
      'auto_custom_code_run',
      { code: "function evaluate(app_params, inputs, output) { if (output.includes('Lima')) throw new Error('no Lima here'); return output.length / 100 }" },
      'length',
    )
  ).id;
});
afterAll(() => endpoint?.close());

async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const results = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return results
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshots, { recursive: true });
  await page.screenshot({ path: `${screenshots}${name}.png`, fullPage: true, animations: 'disabled' });
}

it.skipIf(!available)(
  'starts an evaluation in the form, follows it live, reads its table and compares two, from the server alone, accessibly',
  async () => {
    const projectId = ((await suite.server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const context = await suite.browser!.newContext({ viewport: { width: 1280, height: 900 } });
    const traffic = await onlyFrom(context, suite.server.baseUrl);
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    const base = `${suite.server.baseUrl}/p/${projectId}`;

    // No evaluation yet: the list says so and offers the form.
    await page.goto(`${base}/evaluations`);
    await page.getByText('No evaluation yet').waitFor();
    await page.getByRole('link', { name: 'New evaluation' }).click();
    await page.waitForURL(/\/evaluations\/new$/);

    // The form: a rate limit the API refuses is shown beside its field, from the API's loc.
    await page.getByRole('combobox', { name: /^App/ }).selectOption({ label: 'capitals-app' });
    await page.getByRole('checkbox', { name: /^good/ }).check();
    await page.getByRole('checkbox', { name: /^exact/ }).check();
    await page.getByRole('checkbox', { name: /^length/ }).check();
    await page.getByLabel('Test set').selectOption({ label: 'capitals (6 cases)' });
    const batch = page.getByLabel('Calls at once');
    await batch.fill('0');
    await page.getByLabel('Retries of a failed call').fill('0');
    await page.getByRole('button', { name: 'Start evaluation' }).click();
    await expect.poll(() => batch.getAttribute('aria-invalid')).toBe('true');
    const issue = await page.locator(`#${await batch.getAttribute('aria-describedby')}`).innerText();
    expect(issue).toMatch(/greater than or equal to 1/i);
    await shoot(page, 'evaluation-new');

    // Started: the page follows the run over the subscription while the endpoint holds the calls.
    await batch.fill('2');
    await page.getByRole('button', { name: 'Start evaluation' }).click();
    await page.waitForURL(/\/evaluations\/[0-9a-f-]{36}$/);
    await page.getByText('Live', { exact: true }).waitFor();
    await page.getByText('0 of 6 cases').waitFor();
    gate.open();
    await page.getByText(/^6 of 6 cases, \d with errors$/).waitFor({ timeout: 10_000 });
    await page.locator('.status', { hasText: 'finished with errors' }).first().waitFor();

    // Aggregates with their intervals, as the API gives them.
    const aggregates = page.getByRole('table', { name: 'Scores over every case' });
    await aggregates.getByRole('row', { name: /exact/ }).waitFor();
    expect(await aggregates.getByRole('row', { name: /exact/ }).innerText()).toMatch(/100%\s+95% CI \d+% – 100%/);

    // The results table: a row per case, evaluator errors with their message, a link to the trace.
    const table = page.getByRole('table', { name: 'Results per test case' });
    await expect.poll(() => table.getByRole('row').count()).toBe(7);
    const peru = table.getByRole('row', { name: /country: Peru/ });
    expect(await peru.innerText()).toMatch(/The capital is Lima[\s\S]*pass[\s\S]*Error: .*no Lima here/);
    const atlantis = table.getByRole('row', { name: /country: Atlantis/ });
    expect(await atlantis.innerText()).toMatch(/Error: /);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('rowgroup', { name: 'Test cases' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    const details = page.getByRole('region', { name: 'Test case 2' });
    await details.getByText('no Lima here').waitFor();
    await shoot(page, 'evaluation');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, 'evaluation-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await details.getByRole('link', { name: 'Open the trace' }).click();
    await page.waitForURL(/\/traces\/[0-9a-f]{32}$/);
    await page.getByRole('tree', { name: 'Spans of the trace' }).waitFor();

    // A second run, of the "bad" variant; the list compares the two.
    const second = await startEvaluation(suite.server, { app_id: appId, variant_ids: [bad], evaluators_configs: [exact, code], testset_id: testset.id });
    await waitForStatus(suite.server, second.id);
    await page.goto(`${base}/evaluations`);
    await page.getByRole('checkbox', { name: /^Compare good/ }).check();
    await page.getByRole('checkbox', { name: /^Compare bad/ }).check();
    await shoot(page, 'evaluations');
    await page.getByRole('button', { name: /Compare 2 selected/ }).click();
    await page.waitForURL(/\/evaluations\/compare\?ids=/);
    const cases = page.locator('.compare-case');
    await cases.first().waitFor();
    // Regressions first (Chile and Kenya), the larger change first, then the rest.
    const heads = await cases.locator('h3').allInnerTexts();
    expect(heads.slice(0, 2).every((head) => head.includes('regression'))).toBe(true);
    expect(heads.filter((head) => head.includes('regression'))).toHaveLength(2);
    expect(await cases.first().locator('pre[aria-label="Inputs"]').innerText()).toMatch(/Chile|Kenya/);
    const diff = cases.first().getByRole('group', { name: /against the baseline/ });
    expect(await diff.locator('del').innerText()).toMatch(/Santiago|Nairobi/);
    expect(await diff.locator('ins').innerText()).toMatch(/Rome/);
    await page.getByRole('radio', { name: /The same/ }).check();
    await expect.poll(() => cases.count()).toBe(4);
    await page.getByRole('radio', { name: /^All/ }).check();
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, 'evaluation-compare');

    // Unknown evaluations say so.
    await page.goto(`${base}/evaluations/00000000-0000-0000-0000-000000000000`);
    await page.getByText('No such evaluation').waitFor();

    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  60_000,
);
