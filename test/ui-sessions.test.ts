// The session screens end to end (docs/sessions.md#in-the-ui), in headless Chromium against a real
// Assay on loopback, every request off the server refused: a conversation of three turns sent with
// the OpenTelemetry SDK, with a score of the session and one of a turn, is listed under Sessions,
// filtered, opened turn by turn with the scores, and a turn opens its trace. Needs Debian's chromium; skipped, and reported so, where it is absent.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserSuite, chromiumAvailable as available, screenshot, seriousViolations, watchedPage } from './helpers/browser.js';
import { testTracer, type TestTracer } from './helpers/otel.js';

const suite = browserSuite();
let otel: TestTracer;

beforeAll(() => {
  otel = testTracer('proto', `${suite.server.baseUrl}/v1/traces`);
});
afterAll(() => otel?.shutdown());

/** One turn of a chat: a root span naming the session, its question in and its answer out. */
function sendTurn(session: string, name: string, question: string, answer: string, offsetMs: number): void {
  const t0 = Date.now() - 60_000 + offsetMs;
  const root = otel.tracer.startSpan(name, {
    startTime: t0,
    attributes: {
      'openinference.span.kind': 'CHAIN',
      'session.id': session,
      'user.id': 'ada',
      'input.value': question,
      'output.value': answer,
    },
  });
  root.end(t0 + 300);
}

it.skipIf(!available)(
  'lists sessions, filters them, opens one turn by turn, and a turn opens its trace',
  async () => {
    sendTurn('chat-42', 'greet', 'Hello, who are you?', 'A travel assistant.', 0);
    sendTurn('chat-42', 'ask capital', 'Capital of France?', 'Paris.', 1000);
    sendTurn('chat-42', 'ask river', 'Which river runs through it?', 'The Seine.', 2000);
    sendTurn('chat-7', 'other chat', 'Weather in Lima?', 'Cloudy.', 3000);
    await otel.flush();
    // The session's own score, and one of its second turn.
    const session = await suite.server.request('GET', '/sessions/chat-42');
    const scored = await suite.server.request('POST', '/scores', [
      { session_id: 'chat-42', name: 'resolved', value: true, comment: 'answered both questions' },
      { trace_id: session.body.turns[1].trace_id, name: 'helpful', value: 0.9 },
    ]);
    expect(scored.status, scored.text).toBe(200);
    const { context, page, traffic, consoleErrors } = await watchedPage(suite);

    // The nav leads to the list: the latest-active session first, with its figures and previews.
    await page.goto(`${suite.server.baseUrl}/`);
    await page.waitForURL(/\/p\/[^/]+\/traces$/);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Sessions' }).click();
    await page.waitForURL(/\/p\/[^/]+\/sessions$/);
    const rows = page.locator('table.sessions tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    // The first column holds each row's checkbox.
    expect(await rows.nth(0).locator('td').nth(1).innerText()).toContain('chat-7');
    const chat = rows.nth(1);
    expect(await chat.locator('td').allInnerTexts()).toEqual(expect.arrayContaining(['3', 'Hello, who are you?', 'The Seine.', 'resolved: True']));
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'sessions');

    // A filter goes into the URL and the API.
    await page.getByLabel('Session id contains').fill('42');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/search=42/);
    await expect.poll(() => rows.count()).toBe(1);

    // The selected session's traces become test cases, one per turn, each keeping its trace.
    const testset = await suite.server.request('POST', '/testsets', { name: 'chats', csvdata: [{ question: 'Hi?', answer: 'Hello.' }] });
    await page.getByRole('checkbox', { name: 'Select session chat-42' }).check();
    await page.getByRole('button', { name: 'Add the traces of 1 selected sessions to a test set' }).click();
    const form = page.getByRole('form', { name: 'Add to test set' });
    await form.getByLabel('Test set').selectOption({ label: 'chats (1 cases)' });
    await form.getByRole('button', { name: 'Preview' }).click();
    await form.getByRole('table', { name: 'Preview of the test cases' }).getByRole('row').nth(3).waitFor();
    await form.getByRole('button', { name: 'Add', exact: true }).click();
    await form.getByText('Added as revision 2 of chats').waitFor();
    const added = (await suite.server.request('GET', `/testsets/${testset.body.id}/revisions/2`)).body.rows.slice(1);
    expect(added.map((row: { source_trace_id: string }) => row.source_trace_id).sort()).toEqual(
      session.body.turns.map((turn: { trace_id: string }) => turn.trace_id).sort(),
    );

    // The session: its turns in order, each with its input and output.
    await page.getByRole('link', { name: 'chat-42' }).click();
    await page.waitForURL(/\/sessions\/chat-42$/);
    await page.getByRole('heading', { name: 'Session chat-42' }).waitFor();
    const turns = page.locator('li.turn');
    await expect.poll(() => turns.count()).toBe(3);
    expect(await turns.locator('.turn-head a').allInnerTexts()).toEqual(['greet', 'ask capital', 'ask river']);
    await turns.nth(1).getByText('Capital of France?').waitFor();
    await turns.nth(1).getByText('Paris.').waitFor();
    await turns.nth(1).getByText('helpful: 0.9').waitFor();
    const scores = page.getByRole('region', { name: 'Scores of the session' });
    expect(await scores.locator('tbody td').allInnerTexts()).toEqual(expect.arrayContaining(['resolved', 'True', 'answered both questions', 'api']));
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'session', { fullPage: true });

    // A turn opens its trace, which leads back to its session.
    await turns.nth(1).getByRole('link', { name: 'ask capital' }).click();
    await page.waitForURL(/\/traces\/[0-9a-f]{32}$/);
    await page.getByRole('heading', { name: 'ask capital' }).waitFor();
    await page.getByRole('link', { name: 'chat-42' }).click();
    await page.waitForURL(/\/sessions\/chat-42$/);

    // A session no trace has says so.
    await page.goto(page.url().replace(/chat-42$/, 'chat-0'));
    await page.getByText('No such session').waitFor();

    expect(traffic.offHost).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await context.close();
  },
  60_000,
);
