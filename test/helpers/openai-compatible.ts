// A small OpenAI-compatible model server on loopback, for the tests that drive instrumentation
// libraries with the real `openai` client (docs/instrumentation.md): chat completions (plain,
// streamed with usage, a tool call and the answer to its result), embeddings, and a 400 for an
// unknown model. Its answers are fixed, so tests know the tokens and the conversation to expect.
import type { ServerResponse } from 'node:http';
import { startEndpoint, type FakeEndpoint, type RecordedRequest } from './endpoints.js';

/** The model the server refuses with 400, as OpenAI refuses a model that does not exist. */
export const MISSING_MODEL = 'no-such-model';

export const CHAT_USAGE = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };
export const EMBEDDING_USAGE = { prompt_tokens: 5, total_tokens: 5 };
export const ANSWER = 'Paris is the capital of France.';
export const TOOL_ANSWER = 'It is 21 °C in Paris.';
/** The tool call the server makes when it is offered tools and has no tool result yet. */
export const TOOL_CALL = { id: 'call_weather_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };

const VECTOR = [0.1, 0.2, 0.3];
// The official client asks for base64 (little-endian float32) unless told otherwise.
const VECTOR_BASE64 = Buffer.from(new Float32Array(VECTOR).buffer).toString('base64');

function chunk(res: ServerResponse, value: unknown) {
  res.write(`data: ${JSON.stringify(value)}\n\n`);
}

function stream(res: ServerResponse, body: any) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const base = { id: 'chatcmpl-stream', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
  chunk(res, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  for (const piece of ['Paris is ', 'the capital ', 'of France.'])
    chunk(res, { ...base, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  chunk(res, { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  if (body.stream_options?.include_usage) chunk(res, { ...base, choices: [], usage: CHAT_USAGE });
  res.end('data: [DONE]\n\n');
}

function chat(request: RecordedRequest, res: ServerResponse) {
  const body = request.body;
  if (body.model === MISSING_MODEL) {
    return {
      status: 400,
      body: { error: { message: `The model \`${MISSING_MODEL}\` does not exist`, type: 'invalid_request_error', param: 'model', code: 'model_not_found' } },
    };
  }
  if (body.stream) return stream(res, body);
  const last = body.messages.at(-1);
  const callsTool = Array.isArray(body.tools) && body.tools.length > 0 && last?.role !== 'tool';
  const message = callsTool
    ? { role: 'assistant', content: null, tool_calls: [TOOL_CALL] }
    : { role: 'assistant', content: last?.role === 'tool' ? TOOL_ANSWER : ANSWER };
  return {
    body: {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message, finish_reason: callsTool ? 'tool_calls' : 'stop' }],
      usage: CHAT_USAGE,
    },
  };
}

/** Starts the server; point the client's `baseURL` at its `url` (".../v1"). */
export function startOpenAICompatible(): Promise<FakeEndpoint> {
  return startEndpoint((request, res) => {
    if (request.method === 'POST' && request.path === '/v1/chat/completions') return chat(request, res);
    if (request.method === 'POST' && request.path === '/v1/embeddings') {
      const inputs: unknown[] = Array.isArray(request.body.input) ? request.body.input : [request.body.input];
      return {
        body: {
          object: 'list',
          model: request.body.model,
          data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: request.body.encoding_format === 'base64' ? VECTOR_BASE64 : VECTOR })),
          usage: EMBEDDING_USAGE,
        },
      };
    }
    return { status: 404, body: { error: { message: `no route ${request.method} ${request.path}` } } };
  }, '/v1');
}
