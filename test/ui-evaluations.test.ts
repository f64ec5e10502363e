// The evaluation screens end to end (docs/ui.md#evaluations), in headless Chromium against a real
// Assay on loopback and a local endpoint app: an evaluation started in the form (a refused rate
// limit shown beside its field), followed live to its end, its aggregates and results table read,
// and a comparison of two read with its regressions first and a diff of outputs. Every request off
// the server is refused and counted (none may happen); axe finds no serious violation; each
// screen is saved to docs/screenshots/ with UPDATE_SCREENSHOTS=1. Skipped, and reported so, where chromium is absent.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, screenshot, seriousViolations, watchedPage } from './helpers/browser.js';
import { createGate, startEndpoint, type FakeEndpoint, type Gate } from './helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, createTestset, startEvaluation, waitForStatus } from './helpers/evaluations.js';
import { createHumanEvaluation, waitForHumanStatus } from './helpers/human-evaluations.js';
import { globalId } from '../src/shared/graphql/ids.js';

const suite = browserSuite();

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
      {
        runtime: 'javascript',
        code: "function evaluate(app_params, inputs, output) { if (output.includes('Lima')) throw new Error('no Lima here'); return output.length / 100 }",
      },
      'length',
    )
  ).id;
});
afterAll(() => endpoint?.close());

it.skipIf(!available)(
  'starts an evaluation in the form, follows it live, reads its table and compares two, from the server alone, accessibly',
  async () => {
    const projectId = ((await suite.server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const { context, page, traffic, consoleErrors } = await watchedPage(suite);
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
    await screenshot(page, 'evaluation-new', { fullPage: true });

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
    await screenshot(page, 'evaluation', { fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'evaluation-dark', { fullPage: true });
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
    await screenshot(page, 'evaluations', { fullPage: true });
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
    await screenshot(page, 'evaluation-compare', { fullPage: true });

    // Unknown evaluations say so.
    await page.goto(`${base}/evaluations/00000000-0000-0000-0000-000000000000`);
    await page.getByText('No such evaluation').waitFor();
    await page.goto(`${base}/evaluations/compare?ids=${second.id}`);
    await page.getByText('Choose two evaluations or more').waitFor();

    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  60_000,
);

/** A file dropped on the page's drop zone, as a drag from the desktop delivers it. */
async function dropFile(page: Page, name: string, type: string, text: string): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ([fileName, fileType, content]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([content], fileName, { type: fileType }));
      return transfer;
    },
    [name, type, text] as const,
  );
  await page.locator('.dropzone').dispatchEvent('drop', { dataTransfer });
}

it.skipIf(!available)(
  'lists apps, edits an evaluator config from its template, diffs two revisions and uploads a test set by drag and drop',
  async () => {
    const projectId = ((await suite.server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const variant = (await suite.server.request('GET', `/apps/${appId}/variants`)).body.find((v: { variant_name: string }) => v.variant_name === 'bad');
    await suite.server.request('PUT', `/variants/${variant.variant_id}/parameters`, { parameters: { flavour: 'bad', temperature: 0.7 } });
    const { context, page, traffic, consoleErrors } = await watchedPage(suite);

    // Apps, each with its variants counted by the API (VariantConnection.totalCount) → the app: its variants, configs and test sets.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/apps`);
    const variantCount = (await suite.server.request('GET', `/apps/${appId}/variants`)).body.length;
    const appRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'capitals-app' }) });
    expect(await appRow.getByRole('cell').nth(1).innerText()).toBe(String(variantCount));
    await page.getByRole('link', { name: 'capitals-app' }).click();
    await page.getByRole('heading', { name: 'capitals-app' }).waitFor();
    await page.getByRole('link', { name: 'exact', exact: true }).waitFor();

    // A new config: the form is built from the evaluator's template; the API's 422 is shown beside the field.
    await page.getByRole('link', { name: 'New evaluator config' }).click();
    await page.getByLabel('Name').fill('mentions capital');
    await page.getByRole('combobox', { name: /^Evaluator/ }).selectOption({ label: 'Contains' });
    const substring = page.getByLabel('Substring (required)');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => substring.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.field-issue').allInnerTexts()).toEqual(['Field required']);
    await screenshot(page, 'evaluator-config', { fullPage: true });
    await substring.fill('capital');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/configs\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Evaluator config mentions capital' }).waitFor();
    expect(await page.getByLabel('Substring (required)').inputValue()).toBe('capital');

    // A variant's two revisions, diffed.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/apps/${appId}/variants/${variant.variant_id}`);
    const diff = page.getByLabel('Changes from revision 1 to 2');
    await diff.waitFor();
    expect(await diff.locator('ins').innerText()).toMatch(/"temperature": 0.7/);
    await screenshot(page, 'variant', { fullPage: true });

    // A test set dropped as a CSV file; a JSON file that is not a list is refused beside the drop zone.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/testsets`);
    await dropFile(page, 'broken.json', 'application/json', '{"country": "Italy"}');
    await page.getByRole('button', { name: 'Upload' }).click();
    await page
      .locator('.dropzone .field-issue')
      .getByText(/must hold an array/)
      .waitFor();
    await dropFile(page, 'europe.csv', 'text/csv', 'country,correct_answer\nItaly,Rome\nSpain,Madrid\n');
    expect(await page.getByLabel('Name').inputValue()).toBe('europe');
    await screenshot(page, 'testsets', { fullPage: true });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('heading', { name: 'europe' }).waitFor();
    const rows = page.getByRole('table', { name: /Test cases 1 to 2/ }).getByRole('row');
    expect(await rows.allInnerTexts()).toEqual(['#\tcountry\tcorrect_answer', '1\tItaly\tRome', '2\tSpain\tMadrid']);
    const revisions = page.getByRole('table', { name: /Revisions of the test set/ }).getByRole('row');
    expect((await revisions.allInnerTexts()).map((row) => row.split('\t').slice(0, 3).join(' '))).toEqual(['# Change Cases', '1 uploaded 2']);
    await screenshot(page, 'testset', { fullPage: true });

    // A case made from a production span links to that span; the change is a revision of its own.
    await suite.server.request('POST', '/observability/trace', {
      trace: 'from-production',
      spans: [
        {
          id: 'prod-root',
          name: 'answer',
          spankind: 'WORKFLOW',
          start_time: '2026-01-01T00:00:00Z',
          end_time: '2026-01-01T00:00:01Z',
          inputs: { country: 'Peru' },
          outputs: { answer: 'Lima' },
        },
      ],
    });
    const europe = page.url().split('/testsets/')[1];
    const made = await suite.server.request('POST', `/testsets/${europe}/rows/from-spans`, {
      trace_ids: ['from-production'],
      mapping: { country: '$.input.country', correct_answer: '$.output.answer' },
    });
    expect(made.status).toBe(200);
    await page.reload();
    const source = page.getByRole('table', { name: /Test cases 1 to 3/ }).getByRole('link', { name: 'prod-root' });
    expect(await source.getAttribute('href')).toBe(`/p/${projectId}/traces/from-production?span=prod-root`);
    expect((await revisions.allInnerTexts()).map((row) => row.split('\t').slice(0, 3).join(' '))).toEqual([
      '# Change Cases',
      '1 uploaded 2',
      '2 rows from production spans 3',
    ]);

    // The same from the trace page: choose the test set, correct a JSONPath, preview, then add.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/traces/from-production`);
    await page.getByRole('button', { name: 'Add to test set' }).click();
    const form = page.getByRole('form', { name: 'Add to test set' });
    await form.getByLabel('Test set').selectOption({ label: 'europe (3 cases)' });
    expect(await form.getByLabel('country').inputValue()).toBe('$.input.country');
    await form.getByLabel('correct_answer').fill('output.answer');
    await form.getByRole('button', { name: 'Preview' }).click();
    await form.getByText('A JSONPath starts with $').waitFor();
    await form.getByLabel('correct_answer').fill('$.output.answer');
    await form.getByRole('button', { name: 'Preview' }).click();
    const preview = form.getByRole('table', { name: 'Preview of the test cases' }).getByRole('row');
    await preview.nth(1).waitFor();
    expect(await preview.allInnerTexts()).toEqual(['country\tcorrect_answer', 'Peru\tLima']);
    expect((await suite.server.request('GET', `/testsets/${europe}/revisions`)).body).toHaveLength(2);
    await form.getByRole('button', { name: 'Add', exact: true }).click();
    await form.getByText('Added as revision 3 of europe').waitFor();
    const latest = await suite.server.request('GET', `/testsets/${europe}/revisions/3`);
    expect(latest.body.rows.at(-1)).toMatchObject({
      data: { country: 'Peru', correct_answer: 'Lima' },
      source_trace_id: 'from-production',
      source_span_id: 'prod-root',
    });

    // From the trace list's selection (oldest first, where these early traces are): two traces'
    // root spans become two cases of one revision.
    await suite.server.request('POST', '/observability/trace', {
      trace: 'second-production',
      spans: [
        {
          id: 'second-root',
          name: 'second answer',
          spankind: 'WORKFLOW',
          start_time: '2026-01-01T00:00:02Z',
          end_time: '2026-01-01T00:00:03Z',
          inputs: { country: 'Chile' },
          outputs: { answer: 'Santiago' },
        },
      ],
    });
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/traces?dir=ASC`);
    await page.getByRole('checkbox', { name: 'Select trace answer' }).check();
    await page.getByRole('checkbox', { name: 'Select trace second answer' }).check();
    await page.getByRole('button', { name: 'Add 2 selected to a test set' }).click();
    const listForm = page.getByRole('form', { name: 'Add to test set' });
    await listForm.getByLabel('Test set').selectOption({ label: 'europe (4 cases)' });
    await listForm.getByLabel('correct_answer').fill('$.output.answer');
    await listForm.getByRole('button', { name: 'Preview' }).click();
    const listPreview = listForm.getByRole('table', { name: 'Preview of the test cases' }).getByRole('row');
    await listPreview.nth(2).waitFor();
    expect(await listPreview.allInnerTexts()).toEqual(['country\tcorrect_answer', 'Peru\tLima', 'Chile\tSantiago']);
    await listForm.getByRole('button', { name: 'Add', exact: true }).click();
    await listForm.getByText('Added as revision 4 of europe').waitFor();

    // An old revision opens read-only from the revisions, its rows as they were.
    await page.goto(`${suite.server.baseUrl}/p/${projectId}/testsets/${europe}`);
    await page.getByRole('table', { name: /Test cases 1 to 6/ }).waitFor();
    await page.getByRole('link', { name: 'Revision 2', exact: true }).click();
    await page.getByText('Revision 2 of 4, read-only').waitFor();
    expect(page.url()).toContain('?revision=2');
    const old = page.getByRole('table', { name: /Test cases 1 to 3/ }).getByRole('row');
    expect(await old.allInnerTexts()).toEqual(['#\tcountry\tcorrect_answer\tSource', '1\tItaly\tRome\t', '2\tSpain\tMadrid\t', '3\tPeru\tLima\tprod-root']);
    await page.getByRole('link', { name: 'Show the current revision' }).click();
    await page.getByRole('table', { name: /Test cases 1 to 6/ }).waitFor();

    expect(traffic.offHost).toEqual([]);
    // Chromium logs every 4xx response; the refused upload's 422 is the one expected.
    expect(consoleErrors).toEqual(['Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)']);
    await context.close();
  },
  60_000,
);

it.skipIf(!available)(
  'judges an A/B test with the keyboard, the outputs in their recorded order, and shows win rates, position bias and agreement',
  async () => {
    const projectId = ((await suite.server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const variants = (await suite.server.request('GET', `/apps/${appId}/variants`)).body as { variant_id: string; variant_name: string }[];
    const small = await createTestset(suite.server, [{ country: 'France' }, { country: 'Chile' }, { country: 'Kenya' }], 'three');
    const created = await createHumanEvaluation(suite.server, {
      app_id: appId,
      variant_ids: variants.map((v) => v.variant_id),
      evaluation_type: 'human_a_b_testing',
      inputs: ['country'],
      testset_id: small.id,
    });
    await waitForHumanStatus(suite.server, created.id);
    // The order each case's outputs are shown in, recorded at creation.
    const shown = await suite.server.graphql(
      'query($id: ID!) { humanEvaluation(id: $id) { scenarios(first: 3) { edges { node { shownOutputs { variantId variantOutput } } } } } }',
      { id: globalId('HumanEvaluation', created.id) },
    );
    const order = shown.data.humanEvaluation.scenarios.edges.map(({ node }: any) => node.shownOutputs as { variantId: string; variantOutput: string }[]);
    const { context, page, traffic, consoleErrors } = await watchedPage(suite);

    await page.goto(`${suite.server.baseUrl}/p/${projectId}/human-evaluations/${created.id}`);
    await page.getByRole('link', { name: 'Judge' }).click();
    await page.getByLabel('Your name as a judge').fill('ada');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Case 1 of 3' }).waitFor();
    await screenshot(page, 'human-judge', { fullPage: true });
    // ← the left is better, → the right, 3 both good; each saves and moves on; P goes back.
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('heading', { name: 'Case 2 of 3' }).waitFor();
    // Chile: the two outputs differ, left and right as recorded.
    expect(await page.getByRole('region', { name: 'Left output' }).locator('pre').innerText()).toBe(order[1][0].variantOutput);
    expect(await page.getByRole('region', { name: 'Right output' }).locator('pre').innerText()).toBe(order[1][1].variantOutput);
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { name: 'Case 3 of 3' }).waitFor();
    await page.keyboard.press('3');
    await expect.poll(() => page.getByRole('button', { name: /Both good/ }).getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('p');
    await page.getByRole('heading', { name: 'Case 2 of 3' }).waitFor();
    expect(await page.getByRole('button', { name: /Right is better/ }).getAttribute('aria-pressed')).toBe('true');

    // What the API stored: ada's verdicts, the preferred variants the ones shown left, then right.
    const stored = (await suite.server.request('GET', `/human-evaluations/${created.id}/evaluation_scenarios`)).body as { vote: string }[];
    const rest = (globalVariantId: string) =>
      Buffer.from(globalVariantId, 'base64')
        .toString()
        .replace(/^Variant:/, '');
    expect(stored.map((scenario) => scenario.vote)).toEqual([rest(order[0][0].variantId), rest(order[1][1].variantId), '1']);

    await page.getByRole('link', { name: variants.map((v) => v.variant_name).join(' vs ') }).click();
    await page.getByRole('table', { name: /Win rates/ }).waitFor();
    await page.getByText('ada: 3 of 3').waitFor();
    expect(await page.getByLabel('Position bias').innerText()).toMatch(/of 2 decisive verdicts/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'human-results', { fullPage: true });

    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  30_000,
);
