// Chat Completions streamed (`stream: true`) from any OpenAI-compatible API: the reply's text as it
// is generated, then its model and usage (docs/playground.md#streaming). The usage comes in the
// last event when asked with `stream_options.include_usage`; a provider that ignores `stream` and
// answers one JSON completion is read as one piece.
import type { Dispatcher } from 'undici';
import { excerpt } from '../shared/errors.js';
import { openPost } from '../shared/http/client.js';
import { type CallSignal, PermanentError } from '../shared/retry.js';
import type { ProviderAccess } from './access.js';
import { type ChatRequest, type ChatUsage, readCompletion, readUsage } from './chat.js';

/** A piece of the reply's text, or its end with the model that answered and the usage. */
export type ChatStreamEvent = { kind: 'delta'; text: string } | { kind: 'end'; model: string; usage: ChatUsage | null };

/** The lines of a server-sent event stream's `data:` fields, one event's data at a time. */
async function* eventData(body: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r?\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer[newline] === '\r' ? 2 : 1));
      if (line === '') {
        if (data.length > 0) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
  }
  if (buffer.startsWith('data:')) data.push(buffer.slice(5).replace(/^ /, ''));
  if (data.length > 0) yield data.join('\n');
}

/** A chunk's error object (`{"error": {"message"}}`), which some providers send mid-stream. */
function streamError(chunk: Record<string, unknown>): string | null {
  const error = chunk.error as { message?: unknown } | string | undefined;
  if (!error) return null;
  return typeof error === 'string' ? error : typeof error.message === 'string' ? error.message : JSON.stringify(error);
}

export async function* chatCompletionStream(
  access: ProviderAccess,
  request: ChatRequest,
  signal: CallSignal,
  dispatcher: Dispatcher,
): AsyncGenerator<ChatStreamEvent> {
  const response = await openPost(
    `${access.baseUrl}/chat/completions`,
    { model: access.model, ...request, stream: true, stream_options: { include_usage: true } },
    {
      peer: access.provider,
      signal,
      dispatcher,
      headers: { accept: 'text/event-stream', ...(access.apiKey ? { authorization: `Bearer ${access.apiKey}` } : {}) },
    },
  );
  let model = access.model;
  let usage: ChatUsage | null = null;
  const type = String(response.headers['content-type'] ?? '');
  if (!type.includes('text/event-stream')) {
    const text = await response.body.text();
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new PermanentError(`${access.provider} answered with something other than an event stream or JSON: ${excerpt(text, 300)}`);
    }
    const whole = readCompletion(access, reply, text);
    yield { kind: 'delta', text: whole.content };
    yield { kind: 'end', model: whole.model, usage: whole.usage };
    return;
  }
  for await (const data of eventData(response.body)) {
    if (data.trim() === '[DONE]') break;
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      throw new PermanentError(`${access.provider} sent an event that is not JSON: ${excerpt(data, 300)}`);
    }
    const failure = streamError(chunk);
    if (failure) throw new PermanentError(`${access.provider} failed while answering: ${failure}`);
    if (typeof chunk.model === 'string') model = chunk.model;
    if (chunk.usage) usage = readUsage(chunk.usage);
    const choices = chunk.choices;
    const delta = Array.isArray(choices) ? (choices[0] as { delta?: { content?: unknown } } | undefined)?.delta?.content : undefined;
    if (typeof delta === 'string' && delta !== '') yield { kind: 'delta', text: delta };
  }
  yield { kind: 'end', model, usage };
}
