// The playground's run (`runPrompt` subscription) against a local OpenAI-compatible provider that
// streams: the answer arrives in pieces while the provider is still answering, each run is a trace
// in the environment `playground` with its model, tokens, cost and latency, the provider's failures
// end the stream with their message, bad input names its field, a read-only key is refused, and
// another project's revision is not found.
import { createClient } from 'graphql-sse';
import { beforeAll, describe, expect, it } from 'vitest';
import { createGate, startFakeOpenAI, type FakeEndpoint } from '../../test/helpers/endpoints.js';
import { createApp, promptParameters } from '../../test/helpers/evaluations.js';
import { useTestServer } from '../../test/helpers/server.js';
import { globalId } from '../shared/graphql/ids.js';

const KEY = 'playground-test-key-0123456789abcdef';
const usage = { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 };
let gate = createGate();
let provider: FakeEndpoint;

const server = useTestServer(async () => {
  provider = await startFakeOpenAI((body, request) => {
    if (request.headers.authorization !== 'Bearer sk-good') return { status: 401, content: 'Incorrect API key provided' };
    const question = String(body.messages.at(-1).content);
    switch (body.model) {
      case 'bad-request':
        return { status: 400, content: "'temperature' is out of range" };
      case 'busy':
        return { status: 429, content: 'Rate limit reached for requests' };
      case 'broken':
        return { status: 500, content: 'The server had an error while processing your request' };
      case 'midway':
        return { content: 'Half an answer', failMidway: 'The model overloaded while answering' };
      case 'held':
        return { content: 'First then the rest', usage, afterFirstChunk: gate.wait() };
      default:
        return { content: `You asked: ${question}`, usage };
    }
  });
  return {
    ASSAY_AUTH: 'on',
    ASSAY_INIT_API_KEY: KEY,
    // The provider is on loopback, which a service with auth on calls only when told to.
    ASSAY_OUTBOUND_ALLOW: '127.0.0.1',
    OPENAI_API_KEY: 'sk-good',
    OPENAI_BASE_URL: `${provider.base}/v1`,
    WRONGKEY_API_KEY: 'sk-wrong',
    WRONGKEY_BASE_URL: `${provider.base}/v1`,
    KEYLESS_BASE_URL: `${provider.base}/v1`,
  };
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const RUN = `subscription($input: RunPromptInput!) {
  runPrompt(input: $input) { delta finished output error model tokens { promptTokens completionTokens totalTokens } cost latency traceId }
}`;

/** Every result of one run, through graphql-sse's own client as the web UI uses it. */
async function run(input: Record<string, unknown>, key = KEY, onResult?: (result: any) => void): Promise<any[]> {
  const client = createClient({ url: `${server.baseUrl}/graphql/stream`, headers: bearer(key), retryAttempts: 0 });
  const results: any[] = [];
  try {
    for await (const result of client.iterate({ query: RUN, variables: { input } })) {
      results.push(result);
      onResult?.(result);
    }
  } finally {
    client.dispose();
  }
  return results;
}

const lastEvent = (results: any[]) => results.at(-1).data.runPrompt;

let revisionId: string;
let variantId: string;

beforeAll(async () => {
  const appId = await createApp({ request: (method, path, body) => server.request(method, path, body, bearer(KEY)) }, 'playground-app');
  const variant = (
    await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'capitals', kind: 'prompt', parameters: promptParameters }, bearer(KEY))
  ).body;
  variantId = variant.variant_id;
  const revisions = (await server.request('GET', `/variants/${variantId}/revisions`, undefined, bearer(KEY))).body;
  revisionId = globalId('VariantRevision', revisions[0].id);
});

describe('runPrompt', () => {
  it('streams the answer while the provider is still answering, then ends with its figures', async () => {
    gate = createGate();
    const arrived: number[] = [];
    const results = await run({ parameters: { ...promptParameters, model: 'held' }, variables: { country: 'Peru' } }, KEY, (result) => {
      arrived.push(Date.now());
      // The first piece came while the provider holds the rest: the answer is streamed, not buffered.
      if (arrived.length === 1) {
        expect(result.data.runPrompt).toMatchObject({ delta: 'First ', finished: false, output: null, traceId: null });
        gate.open();
      }
    });
    const deltas = results.filter((result) => !result.data.runPrompt.finished).map((result) => result.data.runPrompt.delta);
    expect(deltas).toEqual(['First ', 'then ', 'the ', 'rest']);
    expect(lastEvent(results)).toMatchObject({
      delta: '',
      finished: true,
      output: 'First then the rest',
      error: null,
      model: 'held',
      tokens: { promptTokens: 12, completionTokens: 4, totalTokens: 16 },
    });
    expect(lastEvent(results).latency).toBeGreaterThan(0);
    const sent = provider.requests.at(-1)!.body;
    expect(sent).toMatchObject({ model: 'held', stream: true, stream_options: { include_usage: true }, temperature: 0.2 });
    expect(sent.messages[1]).toEqual({ role: 'user', content: 'Capital of Peru?' });
  });

  it('still ends and traces a run whose client went away mid-answer', async () => {
    gate = createGate();
    const count = async () => (await server.request('GET', '/observability/traces?environment=playground&size=100', undefined, bearer(KEY))).body;
    const before = JSON.stringify(await count()).split('"trace_id"').length;
    const client = createClient({ url: `${server.baseUrl}/graphql/stream`, headers: bearer(KEY), retryAttempts: 0 });
    const seen: any[] = [];
    try {
      for await (const result of client.iterate({
        query: RUN,
        variables: { input: { parameters: { ...promptParameters, model: 'held' }, variables: { country: 'Fiji' } } },
      })) {
        seen.push(result.data!.runPrompt);
        break;
      }
    } finally {
      client.dispose();
      gate.open();
    }
    expect(seen).toEqual([expect.objectContaining({ delta: 'First ' })]);
    // What the provider was paid for is recorded even though nobody read the rest.
    await expect.poll(async () => JSON.stringify(await count()).split('"trace_id"').length, { timeout: 15_000 }).toBe(before + 1);
  });

  it('runs a saved revision with {{variable}} and {column} placeholders and traces it in `playground`, cost included', async () => {
    const edited = {
      ...promptParameters,
      messages: [{ role: 'user', content: 'Capital of {{ country }} in {lang}?' }],
    };
    const saved = lastEvent(await run({ revisionId, variables: { country: 'Chile' } }));
    expect(saved).toMatchObject({ finished: true, error: null, output: 'You asked: Capital of Chile?', model: 'gpt-4o-mini' });
    // gpt-4o-mini's built-in price: $0.15 and $0.60 per million tokens.
    expect(saved.cost).toBeCloseTo((12 * 0.15 + 4 * 0.6) / 1e6, 12);

    const span = (await server.request('GET', `/observability/traces/${saved.traceId}`, undefined, bearer(KEY))).body;
    expect(span).toMatchObject({
      trace_id: saved.traceId,
      name: 'playground: capitals v1',
      environment: 'playground',
      spankind: 'LLM',
      status: 'OK',
      model: 'gpt-4o-mini',
      variant: { variant_id: variantId, variant_name: 'capitals', revision: 1 },
      metadata: { usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } },
      children: [],
    });
    expect(span.metadata.cost).toBeCloseTo(saved.cost, 12);
    expect(span.metadata.latency).toBeGreaterThan(0);
    // The filled request went in, the answer came out; the template stays in its config.
    expect(span.content.inputs.messages[1].content).toBe('Capital of Chile?');
    expect(span.content.outputs).toEqual({ output: 'You asked: Capital of Chile?' });
    expect(span.config.messages[1].content).toBe('Capital of {country}?');

    // An edit of the revision, with another model: traced as based on it, not as it.
    const edit = lastEvent(await run({ revisionId, parameters: edited, model: 'gpt-4o', variables: { country: 'Chile', lang: 'Spanish' } }));
    expect(edit.output).toBe('You asked: Capital of Chile in Spanish?');
    expect(edit.model).toBe('gpt-4o');
    const editSpan = (await server.request('GET', `/observability/traces/${edit.traceId}`, undefined, bearer(KEY))).body;
    expect(editSpan).toMatchObject({ name: 'playground: capitals v1 (edited)', environment: 'playground', model: 'gpt-4o' });
    expect(editSpan.variant ?? { variant_id: null }).toMatchObject({ variant_id: null });

    // Traces of the playground are listed under their environment.
    const listed = (await server.request('GET', '/observability/traces?environment=playground', undefined, bearer(KEY))).body;
    const ids = (listed.traces ?? listed.items ?? listed).map((t: any) => t.trace_id);
    expect(ids).toEqual(expect.arrayContaining([saved.traceId, edit.traceId]));
  });

  it("ends with the provider's own message on 400, 429, 500, a wrong key, no key and a failure midway, each traced as an error", async () => {
    const cases: [string, RegExp][] = [
      ['bad-request', /^OPENAI answered 400: .*'temperature' is out of range/],
      ['busy', /^OPENAI answered 429: .*Rate limit reached/],
      ['broken', /^OPENAI answered 500: .*had an error/],
      ['wrongkey/gpt-4o-mini', /^WRONGKEY answered 401: .*Incorrect API key/],
      ['keyless/gpt-4o-mini', /^No key for KEYLESS: set KEYLESS_API_KEY in the server's environment$/],
      ['midway', /^OPENAI failed while answering: The model overloaded/],
    ];
    for (const [model, message] of cases) {
      const results = await run({ parameters: { ...promptParameters, model }, variables: { country: 'Peru' } });
      const end = lastEvent(results);
      expect(end.finished, model).toBe(true);
      expect(end.error, model).toMatch(message);
      expect(results.every((result) => !result.errors)).toBe(true);
      const span = (await server.request('GET', `/observability/traces/${end.traceId}`, undefined, bearer(KEY))).body;
      expect(span, model).toMatchObject({ status: 'ERROR', environment: 'playground', status_message: end.error });
    }
    // What came before the failure is kept.
    const midway = lastEvent(await run({ parameters: { ...promptParameters, model: 'midway' } }));
    expect(midway.output).toBe('Half ');
  });

  it('refuses bad input as BAD_USER_INPUT naming the field, before calling anyone', async () => {
    const before = provider.requests.length;
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ variables: {} }, ['body', 'parameters']],
      [{ parameters: { model: 'gpt-4o-mini', messages: [] } }, ['body', 'parameters', 'messages']],
      [{ parameters: { model: 'gpt-4o-mini', messages: [{ role: 'wizard', content: 'hi' }] } }, ['body', 'parameters', 'messages', 0, 'role']],
      [{ parameters: { ...promptParameters, temperature: 7 } }, ['body', 'parameters', 'temperature']],
      [{ parameters: promptParameters, variables: [1, 2] }, ['body', 'variables']],
    ];
    for (const [input, loc] of cases) {
      const [result] = await run(input);
      expect(result.data ?? null, JSON.stringify(input)).toBeNull();
      expect(result.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(result.errors[0].extensions.detail.map((issue: any) => issue.loc)).toContainEqual(loc);
    }
    // An endpoint variant's revision is not a prompt.
    const appId = (await server.request('POST', '/apps', { app_name: 'playground-endpoint' }, bearer(KEY))).body.app_id;
    const endpoint = (
      await server.request('POST', `/apps/${appId}/variants`, { variant_name: 'http', kind: 'endpoint', uri: 'http://127.0.0.1:9/' }, bearer(KEY))
    ).body;
    const endpointRevision = (await server.request('GET', `/variants/${endpoint.variant_id}/revisions`, undefined, bearer(KEY))).body[0].id;
    const [refused] = await run({ revisionId: globalId('VariantRevision', endpointRevision) });
    expect(refused.errors[0].extensions.detail[0].loc).toEqual(['body', 'revision_id']);
    expect(provider.requests.length).toBe(before);
  });

  it("refuses a key that may only read, and answers another project's revision as one that does not exist", async () => {
    const projects = (await server.request('GET', '/projects', undefined, bearer(KEY))).body;
    const readKey = (await server.request('POST', `/projects/${projects[0].id}/api-keys`, { name: 'viewer', scopes: ['read'] }, bearer(KEY))).body.key;
    const before = provider.requests.length;
    const stream = await fetch(`${server.baseUrl}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...bearer(readKey) },
      body: JSON.stringify({ query: RUN, variables: { input: { revisionId } } }),
    });
    expect(stream.status).toBe(403);
    expect((await stream.json()).errors[0].extensions.code).toBe('FORBIDDEN');

    const otherKey = (await server.request('POST', '/projects', { name: 'playground-other' }, bearer(KEY))).body.api_key.key;
    const [missing] = await run({ revisionId }, otherKey);
    expect(missing.errors[0].extensions.code).toBe('NOT_FOUND');
    const [unknown] = await run({ revisionId: globalId('VariantRevision', '00000000-0000-7000-8000-000000000000') });
    expect(unknown.errors[0]).toMatchObject({ message: missing.errors[0].message.replace(/id \S+/, `id 00000000-0000-7000-8000-000000000000`) });
    expect(provider.requests.length).toBe(before);
  });
});
