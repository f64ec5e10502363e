// The webhook evaluator against a real local HTTP server.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getScorer, isTransientError } from '../scoring.js';
import { WEBHOOK_TIMEOUT_MS, webhookScorer } from './webhook.js';
import { context, faultOf, score, scoringCase, storedSettings, valueOf } from '../../../test/helpers/scorers.js';

interface Received {
  method: string;
  contentType: string | undefined;
  body: unknown;
}

let server: Server;
let base: string;
const received: Received[] = [];

function reply(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/good': (_req, res) => reply(res, 200, '{"score": 0.75, "note": "ok"}'),
  '/zero': (_req, res) => reply(res, 201, '{"score": 0}'),
  '/500': (_req, res) => reply(res, 500, 'Internal failure: database is down', { 'content-type': 'text/plain' }),
  '/404': (_req, res) => reply(res, 404, ''),
  '/400': (_req, res) => reply(res, 400, '{"detail": "bad input"}'),
  '/503': (_req, res) => reply(res, 503, 'busy'),
  '/text': (_req, res) => reply(res, 200, 'score: 0.9', { 'content-type': 'text/plain' }),
  '/empty': (_req, res) => reply(res, 200, ''),
  '/noscore': (_req, res) => reply(res, 200, '{"result": 1}'),
  '/stringscore': (_req, res) => reply(res, 200, '{"score": "0.8"}'),
  '/array': (_req, res) => reply(res, 200, '[{"score": 1}]'),
  '/redirect': (_req, res) => reply(res, 302, '', { location: '/good' }),
  '/big': (_req, res) => reply(res, 200, `{"score": 1, "pad": "${'x'.repeat(1_200_000)}"}`),
  '/hang': () => undefined,
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', contentType: req.headers['content-type'], body: text ? JSON.parse(text) : undefined });
      const route = routes[req.url ?? ''];
      if (route) route(req, res);
      else reply(res, 404, '{"detail": "no such route"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  received.length = 0;
  vi.restoreAllMocks();
});

const call = (path: string, input: Partial<Parameters<typeof scoringCase>[0]> = {}, signal?: AbortSignal) =>
  score('auto_webhook_test', { webhook_url: `${base}${path}` }, { output: 'the answer', ...input }, context(signal));

describe('auto_webhook_test', () => {
  it('POSTs inputs, output and correct_answer as JSON and reads the score', async () => {
    const testcase = { question: 'Capital of France?', correct_answer: 'Paris', n: 3 };
    expect(await valueOf('number', call('/good', { testcase, output: 'Paris' }))).toBe(0.75);
    expect(received).toEqual([
      {
        method: 'POST',
        contentType: 'application/json',
        body: { inputs: testcase, output: 'Paris', correct_answer: 'Paris' },
      },
    ]);
  });

  it('sends a JSON output as JSON, the ground truth from the configured column, and null for a missing column', async () => {
    await valueOf('number', call('/good', { testcase: { gold: 42 }, output: { answer: 42 }, correctAnswerColumn: 'gold' }));
    await valueOf('number', call('/good', { testcase: { q: 'x' } }));
    expect(received.map((request) => request.body)).toEqual([
      { inputs: { gold: 42 }, output: { answer: 42 }, correct_answer: 42 },
      { inputs: { q: 'x' }, output: 'the answer', correct_answer: null },
    ]);
  });

  it('accepts a score of 0 and any 2xx status', async () => {
    expect(await valueOf('number', call('/zero'))).toBe(0);
  });

  it('reports a non-2xx answer with its status and body', async () => {
    expect(await faultOf(call('/500'))).toBe(`Webhook ${base}/500 answered 500: Internal failure: database is down`);
    expect(await faultOf(call('/400'))).toBe(`Webhook ${base}/400 answered 400: {"detail": "bad input"}`);
    expect(await faultOf(call('/404'))).toBe(`Webhook ${base}/404 answered 404: (empty body)`);
  });

  it('marks timeouts, unreachable hosts and 408/429/5xx as transient, other faults not', async () => {
    expect(isTransientError(await call('/500'))).toBe(true);
    expect(isTransientError(await call('/503'))).toBe(true);
    expect(isTransientError(await call('/400'))).toBe(false);
    expect(isTransientError(await call('/noscore'))).toBe(false);
  });

  it('reports a reply that is not JSON', async () => {
    expect(await faultOf(call('/text'))).toBe(`Webhook ${base}/text answered 200 with a reply that is not JSON: score: 0.9`);
    expect(await faultOf(call('/empty'))).toBe(`Webhook ${base}/empty answered 200 with a reply that is not JSON: (empty body)`);
  });

  it('reports a reply without a numeric score', async () => {
    expect(await faultOf(call('/noscore'))).toBe('Webhook reply has no numeric "score": {"result": 1}');
    expect(await faultOf(call('/stringscore'))).toBe('Webhook reply has no numeric "score": {"score": "0.8"}');
    expect(await faultOf(call('/array'))).toBe('Webhook reply has no numeric "score": [{"score": 1}]');
  });

  it('does not follow redirects, and says where they point', async () => {
    expect(await faultOf(call('/redirect'))).toBe(
      `Webhook ${base}/redirect answered 302 redirecting to /good; redirects are not followed, so set the final address`,
    );
    expect(received.map((request) => request.method)).toEqual(['POST']);
  });

  it('refuses a reply larger than 1 MB', async () => {
    expect(await faultOf(call('/big'))).toBe(`Webhook ${base}/big sent a reply larger than 1000000 bytes; it should answer {"score": <number>}`);
  });

  it('reports a host that cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/score`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const scored = await score('auto_webhook_test', { webhook_url: url }, { output: 'x' });
    expect(await faultOf(Promise.resolve(scored))).toMatch(new RegExp(`^Webhook ${url} could not be reached: .*ECONNREFUSED`));
    expect(isTransientError(scored)).toBe(true);
  });

  it("gives up on a hanging webhook when the caller's signal times out", async () => {
    const started = Date.now();
    const message = await faultOf(call('/hang', {}, AbortSignal.timeout(150)));
    expect(message).toBe(`Webhook ${base}/hang did not answer in time (the evaluation's time limit ran out)`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('reports a call the caller cancelled', async () => {
    const controller = new AbortController();
    const pending = call('/hang', {}, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await faultOf(pending)).toBe(`The call to webhook ${base}/hang was cancelled`);
  });

  it('gives up on a hanging webhook after its own timeout, as a transient fault', async () => {
    const scorer = webhookScorer(150);
    const scored = await scorer(storedSettings('auto_webhook_test', { webhook_url: `${base}/hang` }), scoringCase({ output: 'x' }), context());
    expect(await faultOf(Promise.resolve(scored))).toBe(`Webhook ${base}/hang did not answer within 0.15 s`);
    expect(isTransientError(scored)).toBe(true);
  });

  it('allows 30 s by default', async () => {
    expect(WEBHOOK_TIMEOUT_MS).toBe(30_000);
    const timeout = vi.spyOn(AbortSignal, 'timeout');
    expect(await valueOf('number', call('/good'))).toBe(0.75);
    expect(timeout).toHaveBeenCalledWith(30_000);
    expect(getScorer('auto_webhook_test')).toBeDefined();
  });
});
