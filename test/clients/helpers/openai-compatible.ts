// A small OpenAI-compatible API on loopback for the client-library tests (docs/instrumentation.md):
// Chat Completions (plain and streamed, with a tool call when tools are offered and the question
// asks for the weather), Embeddings, and a 400 for the model `no-such-model`. Its usage figures are
// fixed, so a test knows the tokens every call reports.
import type { ServerResponse } from 'node:http';
import type OpenAI from 'openai';
import { z } from 'zod';
import { startEndpoint, type FakeEndpoint, type RecordedRequest } from '../../helpers/endpoints.js';

/** The usage of every chat answer, and of every embedding call. */
export const chatUsage = { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 };
export const embeddingUsage = { prompt_tokens: 6, total_tokens: 6 };
export const failingModel = 'no-such-model';
export const failureMessage = 'The model `no-such-model` does not exist';
export const weatherAnswer = 'It is sunny in Paris, 21 °C.';

/** The tool weather questions are offered, in OpenAI's function-tool form. */
export const weatherTools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
  },
];

/** A streamed chat ("Stream me a greeting", usage asked for), read to its end. */
export async function streamGreeting(openai: OpenAI): Promise<void> {
  const stream = await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Stream me a greeting' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const chunk of stream) void chunk;
}

/** The question of every library's tool loop, its tool (in the AI SDK's form) and the tool's answer. */
export const weatherQuestion = { system: 'You answer weather questions.', prompt: 'What is the weather in Paris?' };
export const weatherResult = { city: 'Paris', forecast: 'sunny', celsius: 21 };
export const weatherTool = {
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }: { city: string }) => ({ ...weatherResult, city }),
};

interface ChatMessage {
  role: string;
  content?: unknown;
}

/** The answer to a chat request: a tool call, or a text. */
function answerOf(body: { messages: ChatMessage[]; tools?: unknown[] }): { text: string } | { toolCall: { id: string; name: string; arguments: string } } {
  const last = body.messages[body.messages.length - 1];
  if (last?.role === 'tool') return { text: weatherAnswer };
  const question = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  if (body.tools?.length && /weather/i.test(question)) {
    return { toolCall: { id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' } };
  }
  return { text: `You said: ${question.slice(0, 60)}` };
}

function stream(res: ServerResponse, model: string, answer: ReturnType<typeof answerOf>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta: object, finish: string | null, usage?: object) =>
    res.write(
      `data: ${JSON.stringify({
        id: 'chatcmpl-stream',
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: finish === 'usage' ? [] : [{ index: 0, delta, finish_reason: finish }],
        ...(usage ? { usage } : {}),
      })}\n\n`,
    );
  if ('text' in answer) {
    chunk({ role: 'assistant', content: '' }, null);
    for (const piece of answer.text.match(/.{1,8}/g) ?? []) chunk({ content: piece }, null);
    chunk({}, 'stop');
  } else {
    const { id, name, arguments: args } = answer.toolCall;
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: args } }] }, null);
    chunk({}, 'tool_calls');
  }
  chunk({}, 'usage', chatUsage);
  res.end('data: [DONE]\n\n');
}

/** The API at `url` (".../v1"); its `requests` are what the client sent. */
export async function startOpenAICompatible(): Promise<FakeEndpoint> {
  return startEndpoint((request: RecordedRequest, res) => {
    const body = request.body as { model: string; stream?: boolean; messages: ChatMessage[]; tools?: unknown[]; input?: unknown };
    if (request.method === 'POST' && body?.model === failingModel) {
      return { status: 400, body: { error: { message: failureMessage, type: 'invalid_request_error', param: 'model', code: 'model_not_found' } } };
    }
    if (request.method === 'POST' && request.path === '/v1/embeddings') {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      return {
        body: {
          object: 'list',
          model: body.model,
          data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.1 * (index + 1), 0.2, 0.3] })),
          usage: embeddingUsage,
        },
      };
    }
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') return { status: 404, body: { error: { message: `no route ${request.path}` } } };
    const answer = answerOf(body);
    if (body.stream) return stream(res, body.model, answer);
    const message =
      'text' in answer
        ? { role: 'assistant', content: answer.text }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: answer.toolCall.id, type: 'function', function: { name: answer.toolCall.name, arguments: answer.toolCall.arguments } }],
          };
    return {
      body: {
        id: 'chatcmpl-test',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message, finish_reason: 'text' in answer ? 'stop' : 'tool_calls' }],
        usage: chatUsage,
      },
    };
  }, '/v1');
}
