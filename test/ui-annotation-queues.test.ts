// Annotation queues in the web UI end to end (docs/annotation-queues.md#in-the-ui), in headless
// Chromium against a real Assay and a local endpoint app: a queue made in the form, three traces
// added from the trace list's selection, reviewed with the keyboard alone (values picked with
// digits, a correction typed for the wrong answer, Ctrl+Enter to the next); the scores stored, read
// over REST and GraphQL, match what was pressed; the queue exported to a new test set with the
// mapping previewed, and an evaluation run on that test set. Needs Debian's chromium; skipped where absent.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, screenshot, seriousViolations, watchedPage } from './helpers/browser.js';
import { startEndpoint, type FakeEndpoint } from './helpers/endpoints.js';
import { createApp, createConfig, createEndpointVariant, startEvaluation, waitForStatus } from './helpers/evaluations.js';
import { ingestSpans, legacySpan } from './helpers/spans.js';

const suite = browserSuite();
const capitals: Record<string, string> = { France: 'Paris', Japan: 'Tokyo', Peru: 'Lima' };
// What production answered: Japan's answer is wrong, and the reviewer corrects it.
const answered: Record<string, string> = { France: 'The capital is Paris', Japan: 'The capital is Kyoto', Peru: 'The capital is Lima' };
// The keys pressed per trace: `correct` (1 True, 2 False), then → and `quality` (1 bad, 2 fine, 3 good).
const pressed: Record<string, { correct: string; quality: string; correction?: string }> = {
  France: { correct: '1', quality: '3' },
  Japan: { correct: '2', quality: '1', correction: 'The capital is Tokyo' },
  Peru: { correct: '1', quality: '2' },
};
const labels = { correct: { '1': 'True', '2': 'False' }, quality: { '1': 'bad', '2': 'fine', '3': 'good' } } as const;
let endpoint: FakeEndpoint;

beforeAll(async () => {
  endpoint = await startEndpoint((request) => {
    const { inputs } = request.body as { inputs: { country: string } };
    return { body: { message: `The capital is ${capitals[inputs.country]}`, cost: 0.001, latency: 0.1 } };
  });
});
afterAll(() => endpoint?.close());

it.skipIf(!available)(
  'reviews a queue of three traces with the keyboard alone, stores what was pressed, and exports it to a test set an evaluation runs on',
  async () => {
    const { server } = suite;
    for (const [index, country] of Object.keys(capitals).entries()) {
      await ingestSpans(server, `trace-${country.toLowerCase()}`, [
        legacySpan(`root-${country}`, null, index, index + 1, { name: `capital of ${country}`, inputs: { country }, outputs: { answer: answered[country] } }),
      ]);
    }
    expect((await server.request('POST', '/score-configs', { name: 'correct', data_type: 'BOOLEAN' })).status).toBe(200);
    const quality = {
      name: 'quality',
      data_type: 'CATEGORICAL',
      categories: [
        { label: 'bad', value: 0 },
        { label: 'fine', value: 1 },
        { label: 'good', value: 2 },
      ],
    };
    expect((await server.request('POST', '/score-configs', quality)).status).toBe(200);
    // An online rule (disabled: it only shows the form's rule choice) for the queue to name.
    const checks = await createConfig(server, await createApp(server), 'auto_custom_code_run', {
      code: 'function evaluate() { return 1; }',
      runtime: 'javascript',
      version: '2',
    });
    const rule = await server.request('POST', '/evaluation-rules', { name: 'capital checks', evaluator_config_id: checks.id, enabled: false });
    expect(rule.status, rule.text).toBe(200);
    const projectId = ((await server.request('GET', '/projects')).body as { id: string; name: string }[]).find((p) => p.name === 'default')!.id;
    const { context, page, traffic, consoleErrors } = await watchedPage(suite);

    // The queue, made in the form: its 422 beside the field first.
    await page.goto(`${server.baseUrl}/p/${projectId}/queues`);
    await page.getByText('No annotation queue yet').waitFor();
    await page.getByText('New queue').click();
    const form = page.getByRole('form', { name: 'New annotation queue' });
    await form.getByLabel('Name').fill('capitals review');
    await form.getByRole('button', { name: 'Create the queue' }).click();
    await expect.poll(() => form.locator('.field-issue').allInnerTexts()).not.toEqual([]);
    await form.getByLabel('correct (boolean)').check();
    await form.getByLabel('quality (categorical)').check();
    await form.getByLabel('capital checks').check();
    await form.getByLabel('Which of their scores add the target').selectOption('FAILED');
    await form.getByRole('button', { name: 'Create the queue' }).click();
    await page.getByRole('listitem', { name: 'capitals review' }).waitFor();
    const made = ((await server.request('GET', '/annotation-queues')).body as { name: string }[]).find((queue) => queue.name === 'capitals review');
    expect(made).toMatchObject({ rule_ids: [rule.body.id], rule_condition: 'failed' });

    // The three traces, chosen in the trace list and added to the queue.
    await page.goto(`${server.baseUrl}/p/${projectId}/traces`);
    for (const country of Object.keys(capitals)) await page.getByRole('checkbox', { name: `Select trace capital of ${country}` }).check();
    await page.getByRole('button', { name: 'Add to queue' }).click();
    const add = page.getByRole('form', { name: 'Add to queue' });
    await add.getByLabel('Queue').selectOption({ label: 'capitals review' });
    await add.getByLabel('the 3 selected traces').check();
    await add.getByRole('button', { name: 'Add' }).click();
    await expect.poll(() => add.getByRole('status').innerText()).toBe('Added 3 to capitals review.');

    // The review, with the keyboard alone.
    await page.goto(`${server.baseUrl}/p/${projectId}/queues`);
    await page.getByRole('link', { name: 'Review' }).click();
    await page.getByRole('heading', { name: 'Reviewing capitals review' }).waitFor();
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keys' }).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog', { name: 'Keys' }).count()).toBe(0);
    const seen: string[] = [];
    for (let item = 0; item < 3; item++) {
      const heading = page.locator('.review-item h1');
      await expect.poll(() => heading.innerText()).not.toBe(seen.at(-1) ?? '');
      const country = (await heading.innerText()).replace('capital of ', '').trim();
      seen.push(`capital of ${country}`);
      const keys = pressed[country];
      await page.keyboard.press(keys.correct);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press(keys.quality);
      await expect.poll(() => page.getByTestId('value-correct').innerText()).toBe(labels.correct[keys.correct as '1']);
      await expect.poll(() => page.getByTestId('value-quality').innerText()).toBe(labels.quality[keys.quality as '1']);
      if (keys.correction) {
        await page.keyboard.press('e');
        await page.keyboard.type(keys.correction);
        await page.keyboard.press('Escape');
        expect(await seriousViolations(page)).toEqual([]);
        await screenshot(page, 'annotation-review', { fullPage: true });
      }
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('Control+Enter');
    }
    await page.getByText('Nothing left for you in this queue').waitFor();
    expect(seen.sort()).toEqual(Object.keys(capitals).map((country) => `capital of ${country}`));

    // What was stored matches what was pressed, over REST and GraphQL.
    const stored = (await server.request('GET', '/scores?source=annotation&limit=100')).body.scores as {
      trace_id: string;
      name: string;
      string_value: string;
    }[];
    const expected = Object.entries(pressed).flatMap(([country, keys]) => [
      [`trace-${country.toLowerCase()}`, 'correct', labels.correct[keys.correct as '1']],
      [`trace-${country.toLowerCase()}`, 'quality', labels.quality[keys.quality as '1']],
      ...(keys.correction ? [[`trace-${country.toLowerCase()}`, 'correction', keys.correction]] : []),
    ]);
    expect(stored.map((score) => [score.trace_id, score.name, score.string_value]).sort()).toEqual(expected.sort());
    const graphql = await server.request('POST', '/graphql', {
      query: '{ annotationQueues { edges { node { progress { done items } items(status: DONE) { edges { node { targetId annotationCount } } } } } } }',
    });
    const queue = graphql.body.data.annotationQueues.edges[0].node;
    expect(queue.progress).toEqual({ done: 3, items: 3 });
    expect(queue.items.edges.map((edge: { node: { annotationCount: number } }) => edge.node.annotationCount)).toEqual([1, 1, 1]);

    // The list: the queue done, its reviewer counted.
    await page.goto(`${server.baseUrl}/p/${projectId}/queues`);
    const card = page.getByRole('listitem', { name: 'capitals review' });
    await expect.poll(() => card.innerText()).toContain('3 of 3 items done');
    expect(await card.getByRole('table', { name: 'Per reviewer' }).innerText()).toMatch(/3/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'annotation-queues');

    // The export: the mapping previewed, then a new test set written.
    await card.getByRole('button', { name: 'Export to a test set' }).click();
    const dialog = page.getByRole('form', { name: 'Export to a test set' });
    await dialog.getByLabel('New test set’s name').fill('capitals from review');
    await dialog.getByLabel('Column 1', { exact: true }).fill('country');
    await dialog.getByLabel('JSONPath of column 1').fill('$.input.country');
    await dialog.getByLabel('Column 2', { exact: true }).fill('correct_answer');
    await dialog.getByLabel('JSONPath of column 2').fill('$.output.answer');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    const preview = dialog.getByRole('table', { name: 'The rows the export writes' });
    await preview.waitFor();
    const japan = preview.getByRole('row').filter({ hasText: 'Japan' });
    expect(await japan.innerText()).toContain('The capital is Tokyo');
    expect(await preview.getByRole('row').count()).toBe(4);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'annotation-export', { fullPage: true });
    await dialog.getByRole('button', { name: 'Export', exact: true }).click();
    await expect.poll(() => dialog.getByRole('status').innerText()).toContain('Written as revision 1 of capitals from review');

    const testsets = (await server.request('GET', '/testsets')).body as { id: string; name: string }[];
    const testsetId = testsets.find((testset) => testset.name === 'capitals from review')!.id;
    const rows = (await server.request('GET', `/testsets/${testsetId}`)).body.csvdata as Record<string, unknown>[];
    expect(rows).toEqual(
      ['France', 'Japan', 'Peru']
        .sort((a, b) => seen.indexOf(`capital of ${a}`) - seen.indexOf(`capital of ${b}`))
        .map((country) => ({
          country,
          correct_answer: pressed[country].correction ?? answered[country],
          correct: labels.correct[pressed[country].correct as '1'],
          quality: labels.quality[pressed[country].quality as '1'],
        })),
    );

    // The evaluation on the exported set: the corrected answer is what the app now says.
    const appId = await createApp(server, 'capitals-app');
    const variant = await createEndpointVariant(server, appId, endpoint.url);
    const exact = await createConfig(server, appId, 'auto_exact_match');
    const evaluation = await startEvaluation(server, {
      app_id: appId,
      variant_ids: [variant.variant_id],
      evaluators_configs: [exact.id],
      testset_id: testsetId,
    });
    expect((await waitForStatus(server, evaluation.id, undefined, 30_000)).status.value).toBe('EVALUATION_FINISHED');
    const results = (await server.request('GET', `/evaluations/${evaluation.id}`)).body.aggregated_results as { result: { value: number } }[];
    expect(results[0].result.value).toBe(1);

    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  180_000,
);
