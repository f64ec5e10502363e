// The provider client evaluators use, against a local OpenAI-compatible server: what it sends
// (key, base URL, body), usage and cost recorded per call, retries on 429/5xx honouring
// Retry-After, no retry on 4xx, a time limit per attempt, and embeddings in input order.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinPriceList } from '../pricing/prices.js';
import { type FakeEndpoint, startFakeOpenAI } from '../../test/helpers/endpoints.js';
import { type ProviderCallRecord, ProviderCallError, providerClient } from './client.js';

let openai: FakeEndpoint;
/** Per test key: how many times the server has answered it. */
const seen = new Map<string, number>();

function count(key: string): number {
  const n = (seen.get(key) ?? 0) + 1;
  seen.set(key, n);
  return n;
}

beforeAll(async () => {
  openai = await startFakeOpenAI(
    async (body, request) => {
      const key = String(request.headers.authorization).replace('Bearer ', '');
      const n = count(key);
      if (key === 'sk-429' && n === 1) return { status: 429, content: 'slow down', headers: { 'retry-after': '0.05' } };
      if (key === 'sk-503' && n <= 5) return { status: 503, content: 'unavailable' };
      if (key === 'sk-401') return { status: 401, content: 'bad key' };
      if (key === 'sk-slow') await new Promise((resolve) => setTimeout(resolve, 300));
      return { content: `reply ${n}`, model: `${body.model}-2024-07-18`, usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } };
    },
    (body) => ({
      vectors: (body.input as string[]).map((text) => [text.length, 1, 0]),
      usage: { prompt_tokens: 8, total_tokens: 8 },
      raw: body.input[0] === 'malformed' ? { data: [{ embedding: 'x' }] } : undefined,
    }),
  );
});

afterAll(async () => {
  await openai?.close();
});

function client(apiKey: string, options: { retries?: number; timeoutMs?: number } = {}) {
  const calls: ProviderCallRecord[] = [];
  const providers = providerClient({
    prices: builtinPriceList,
    keys: { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: openai.url },
    dispatcher: new Agent(),
    env: {},
    timeoutMs: options.timeoutMs ?? 5_000,
    retries: options.retries ?? 2,
    retryDelayMs: 10,
    signal: new AbortController().signal,
    onCall: (call) => calls.push(call),
  });
  return { providers, calls };
}

function requestsWith(key: string) {
  return openai.requests.filter((request) => request.headers.authorization === `Bearer ${key}`);
}

describe('providerClient.chat', () => {
  it('sends the request with the key to <base>/chat/completions and records usage and cost', async () => {
    const { providers, calls } = client('sk-ok');
    const reply = await providers.chat('gpt-4o-mini', { messages: [{ role: 'user', content: 'hi' }], temperature: 0 });
    expect(reply).toEqual({
      content: 'reply 1',
      model: 'gpt-4o-mini-2024-07-18',
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, cached_tokens: null },
    });
    expect(requestsWith('sk-ok').map((r) => [r.path, r.body])).toEqual([
      ['/v1/chat/completions', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 0 }],
    ]);
    expect(calls).toHaveLength(1);
    // gpt-4o-mini: 0.15 / 0.60 USD per 1M tokens → (100 × 0.15 + 10 × 0.6) / 1e6 = 2.1e-5.
    expect(calls[0]).toMatchObject({ kind: 'chat', provider: 'OPENAI', model: 'gpt-4o-mini-2024-07-18', response: 'reply 1', error: null, attempts: 1 });
    expect(calls[0].cost).toEqual({ cost: 0.000021, source: 'computed' });
    expect(calls[0].endNs).toBeGreaterThanOrEqual(calls[0].startNs);
  });

  it('retries a 429 after the Retry-After it was given, and records the attempts', async () => {
    const { providers, calls } = client('sk-429');
    const reply = await providers.chat('gpt-4o-mini', { messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.content).toBe('reply 2');
    const requests = requestsWith('sk-429');
    expect(requests).toHaveLength(2);
    expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(40);
    expect(calls.map((call) => call.attempts)).toEqual([2]);
  });

  it('gives up on 5xx after its retries with a ProviderCallError naming the answer and the attempts', async () => {
    const { providers, calls } = client('sk-503', { retries: 2 });
    const failure = providers.chat('gpt-4o-mini', { messages: [{ role: 'user', content: 'hi' }] });
    await expect(failure).rejects.toThrow(ProviderCallError);
    await expect(failure).rejects.toThrow('OPENAI answered 503: {"error":{"message":"unavailable"}} (after 3 attempts)');
    expect(requestsWith('sk-503')).toHaveLength(3);
    expect(calls).toMatchObject([{ error: 'OPENAI answered 503: {"error":{"message":"unavailable"}}', response: null, cost: null, attempts: 3 }]);
  });

  it('does not retry a 401', async () => {
    const { providers } = client('sk-401', { retries: 3 });
    await expect(providers.chat('gpt-4o-mini', { messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(
      'OPENAI answered 401: {"error":{"message":"bad key"}}',
    );
    expect(requestsWith('sk-401')).toHaveLength(1);
  });

  it('stops an attempt at its time limit and retries it', async () => {
    const { providers } = client('sk-slow', { retries: 1, timeoutMs: 100 });
    await expect(providers.chat('gpt-4o-mini', { messages: [{ role: 'user', content: 'hi' }] })).rejects.toThrow(
      'OPENAI did not answer within 0.1 s (after 2 attempts)',
    );
    expect(requestsWith('sk-slow')).toHaveLength(2);
  });

  it('refuses to call a provider without a key, naming the key', async () => {
    const providers = providerClient({
      prices: builtinPriceList,
      keys: null,
      dispatcher: new Agent(),
      env: {},
      timeoutMs: 1000,
      retries: 0,
      retryDelayMs: 0,
      signal: new AbortController().signal,
    });
    await expect(providers.chat('mistral/mistral-small', { messages: [] })).rejects.toThrow('No provider key for MISTRAL_API_KEY');
  });
});

describe('providerClient.embed', () => {
  it('posts {model, input} to <base>/embeddings and answers one vector per text, with usage', async () => {
    const { providers, calls } = client('sk-embed');
    const reply = await providers.embed('text-embedding-3-small', ['ab', 'abcd']);
    expect(reply.vectors).toEqual([
      [2, 1, 0],
      [4, 1, 0],
    ]);
    expect(requestsWith('sk-embed').map((r) => [r.path, r.body])).toEqual([['/v1/embeddings', { model: 'text-embedding-3-small', input: ['ab', 'abcd'] }]]);
    // text-embedding-3-small: 0.02 USD per 1M tokens → 8 × 0.02 / 1e6 = 1.6e-7.
    expect(calls[0]).toMatchObject({ kind: 'embedding', response: { dimensions: 3 }, attempts: 1 });
    expect(calls[0].cost).toEqual({ cost: 1.6e-7, source: 'computed' });
  });

  it('refuses a reply that is not a list of vectors', async () => {
    const { providers } = client('sk-embed-bad');
    await expect(providers.embed('text-embedding-3-small', ['malformed'])).rejects.toThrow(/answered an embedding that is not a list of numbers/);
  });
});
