// How the runner uses its call slots (docs/online-evaluation.md#jobs): no more evaluator calls at
// once than ONLINE_EVALUATION_CONCURRENCY, one round of jobs claimed and decided ahead of the slots,
// and the jobs answering together stored in one write (their ends share the write's time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';
import { type FakeEndpoint, sleep, startFakeOpenAI } from '../../test/helpers/endpoints.js';
import { createApp, createConfig } from '../../test/helpers/evaluations.js';
import { legacySpan } from '../../test/helpers/spans.js';

const CONCURRENCY = 2;
const TRACES = 12;

let server: TestServer;
let judge: FakeEndpoint;
let inFlight = 0;
let maxInFlight = 0;
/** Calls the judge holds until the test lets them go. */
const held: (() => void)[] = [];
let holding = true;

beforeAll(async () => {
  judge = await startFakeOpenAI(async () => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    if (holding) await new Promise<void>((resolve) => held.push(resolve));
    else await sleep(30);
    inFlight -= 1;
    return { content: '{"score": 8}', usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } };
  });
  server = await startServer({ OPENAI_API_KEY: 'sk-judge', OPENAI_BASE_URL: judge.url, ONLINE_EVALUATION_CONCURRENCY: String(CONCURRENCY) });
});

afterAll(async () => {
  holding = false;
  for (const release of held.splice(0)) release();
  await server?.close();
  await judge?.close();
});

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`${what}: ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

describe('online evaluation call slots', () => {
  it('calls at most the configured concurrency at once, claims a round ahead, and stores answers together', async () => {
    const appId = await createApp(server);
    const config = await createConfig(
      server,
      appId,
      'auto_ai_critique',
      { prompt_template: [{ role: 'user', content: 'Rate from 0 to 10: {prediction}' }] },
      'helpfulness',
    );
    const rule = await server.request('POST', '/evaluation-rules', { name: 'slots', target: 'trace', evaluator_config_id: config.id });
    expect(rule.status).toBe(200);
    for (let i = 0; i < TRACES; i++) {
      const response = await server.request('POST', '/observability/trace', {
        trace: `slots-${i}`,
        spans: [legacySpan(`slots-${i}-root`, null, 0, 1, { spankind: 'llm', inputs: { question: `q${i}` }, outputs: { answer: `a${i}` } })],
      });
      expect(response.status).toBe(200);
    }
    const stats = () => server.request('GET', `/evaluation-rules/${rule.body.id}/stats`).then((response) => response.body.jobs);

    // The judge holds every call: the slots fill, and one more round is claimed and decided behind them.
    await until(
      'two calls held',
      () => Promise.resolve(held.length),
      (count) => count === CONCURRENCY,
    );
    // (Planning follows each commit apart from the request: the last jobs may come a little later.)
    await until('a round claimed ahead', stats, (jobs) => jobs.RUNNING === 2 * CONCURRENCY && jobs.PENDING === TRACES - 2 * CONCURRENCY);
    await sleep(300);
    expect(await stats()).toMatchObject({ RUNNING: 2 * CONCURRENCY, PENDING: TRACES - 2 * CONCURRENCY, DONE: 0 });
    expect(held).toHaveLength(CONCURRENCY);
    expect(inFlight).toBe(CONCURRENCY);

    // Let them go: every job ends DONE, never more than CONCURRENCY calls at once.
    holding = false;
    for (const release of held.splice(0)) release();
    await until('every job done', stats, (jobs) => jobs.DONE === TRACES);
    expect(maxInFlight).toBe(CONCURRENCY);

    // The first round's two answers came together and were stored in one write: their ends share its time.
    const jobs = (await server.request('GET', `/evaluation-rules/${rule.body.id}/jobs?limit=100`)).body.jobs as { finished_at: string; score_id: string }[];
    expect(jobs).toHaveLength(TRACES);
    expect(jobs.every((job) => job.score_id)).toBe(true);
    const writes = new Set(jobs.map((job) => job.finished_at));
    expect(writes.size).toBeLessThan(TRACES);
  });
});
