// Embeddings against any OpenAI-compatible API (`POST <base>/embeddings`): one call, with failures
// sorted into transient (retried by the caller) and permanent (call.ts).
import type { Dispatcher } from 'undici';
import { excerpt } from '../shared/errors.js';
import { type CallSignal, PermanentError } from '../shared/retry.js';
import type { ProviderAccess } from './access.js';
import { callProvider } from './call.js';
import { type ChatUsage, readUsage } from './chat.js';

export interface EmbeddingReply {
  /** One vector per input, in input order. */
  vectors: number[][];
  model: string;
  usage: ChatUsage | null;
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((n) => typeof n === 'number' && Number.isFinite(n));
}

export async function createEmbeddings(access: ProviderAccess, input: string[], signal: CallSignal, dispatcher: Dispatcher): Promise<EmbeddingReply> {
  const call = await callProvider(access, '/embeddings', { input }, signal, dispatcher);
  const { text } = call;
  const reply = (call.reply ?? {}) as { data?: unknown; model?: unknown; usage?: unknown };
  const data = Array.isArray(reply?.data) ? (reply.data as { index?: unknown; embedding?: unknown }[]) : null;
  if (!data || data.length !== input.length) {
    throw new PermanentError(`${access.provider} answered without ${input.length} embeddings: ${excerpt(text, 300)}`);
  }
  // Items carry their input's index; order by it rather than trusting the list order.
  const vectors: number[][] = new Array<number[]>(input.length);
  data.forEach((item, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    if (!isVector(item?.embedding) || index < 0 || index >= input.length) {
      throw new PermanentError(`${access.provider} answered an embedding that is not a list of numbers: ${excerpt(text, 300)}`);
    }
    vectors[index] = item.embedding;
  });
  if (vectors.some((vector) => vector === undefined))
    throw new PermanentError(`${access.provider} answered embeddings with repeated indexes: ${excerpt(text, 300)}`);
  const model = typeof reply.model === 'string' ? reply.model : access.model;
  return { vectors, model, usage: readUsage(reply.usage) };
}
