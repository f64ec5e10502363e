// The model-provider client that evaluators use (LLM judges, embeddings): chat.ts and
// embeddings.ts bound to an evaluation's provider keys (lm_providers_keys, else the server's
// environment), with a time limit per attempt and the evaluation's retries (transient failures:
// network errors, timeouts, 408/429/5xx, `Retry-After` honoured). Every call, successful or not,
// is reported to `onCall` with what was sent, the usage and the cost, so the caller can trace it
// and keep what evaluating cost apart from what the app cost.
import type { Dispatcher } from 'undici';
import type { CallCost, PriceList } from '../pricing/prices.js';
import { type CallLimits, type CallSignal, callWithRetries } from '../shared/retry.js';
import { type ProviderAccess, type ProviderKeys, missingKeysMessage, missingProviderKey, providerAccess } from './access.js';
import { type ChatReply, type ChatRequest, type ChatUsage, chatCompletion } from './chat.js';
import { type EmbeddingReply, createEmbeddings } from './embeddings.js';

export interface ProviderCallRecord {
  kind: 'chat' | 'embedding';
  provider: string;
  /** The model as the provider reported it (as asked when it did not say). */
  model: string;
  /** What was sent: the Chat Completions body, or `{model, input}`. */
  request: Record<string, unknown>;
  /** The reply's text (chat), or `{dimensions}` (embeddings); null when the call failed. */
  response: unknown;
  error: string | null;
  usage: ChatUsage | null;
  /** USD from the usage and the project's prices (computed), or as the provider reported it; null when unknown. */
  cost: CallCost | null;
  startNs: bigint;
  endNs: bigint;
  attempts: number;
}

export interface ProviderClientOptions extends CallLimits {
  keys: ProviderKeys | null;
  env: Record<string, string>;
  /** The service's outbound dispatcher (`Services.outbound`). */
  dispatcher: Dispatcher;
  /** The project's prices, which cost each call (pricing/operations.ts priceList). */
  prices: PriceList;
  onCall?: (record: ProviderCallRecord) => void;
}

/** A provider call that failed for good (after its retries); the message names the provider and what it answered. */
export class ProviderCallError extends Error {
  override name = 'ProviderCallError';
}

export interface ProviderClient {
  /** One Chat Completions call of `model` ("<provider>/<name>", or an OpenAI model). */
  chat(model: string, request: ChatRequest): Promise<ChatReply>;
  /** Embeddings of `input` by `model`, one vector per text. */
  embed(model: string, input: string[]): Promise<EmbeddingReply>;
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

export function providerClient(options: ProviderClientOptions): ProviderClient {
  async function call<T extends { model: string; usage: ChatUsage | null }>(
    kind: ProviderCallRecord['kind'],
    model: string,
    request: (access: ProviderAccess) => Record<string, unknown>,
    send: (access: ProviderAccess, signal: CallSignal) => Promise<T>,
    response: (reply: T) => unknown,
  ): Promise<T> {
    const access = providerAccess(model, options.keys, options.env);
    const sent = request(access);
    const missing = missingProviderKey(model, options.keys, options.env);
    if (missing) throw new ProviderCallError(missingKeysMessage([missing]));
    let attempts = 0;
    const startNs = nowNs();
    const started = process.hrtime.bigint();
    const record = (fields: Pick<ProviderCallRecord, 'model' | 'response' | 'error' | 'usage' | 'cost'>) =>
      options.onCall?.({ kind, provider: access.provider, request: sent, startNs, endNs: startNs + (process.hrtime.bigint() - started), attempts, ...fields });
    try {
      const reply = await callWithRetries(options, `${access.provider} did not answer within ${options.timeoutMs / 1000} s`, (signal, attempt) => {
        attempts = attempt;
        return send(access, signal);
      });
      record({
        model: reply.model,
        response: response(reply),
        error: null,
        usage: reply.usage,
        cost: options.prices.callCost(null, reply.model, reply.usage, new Date(Number(startNs / 1_000_000n))),
      });
      return reply;
    } catch (error) {
      options.signal.throwIfAborted();
      const message = (error as Error).message;
      const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
      record({ model: access.model, response: null, error: message, usage: null, cost: null });
      throw new ProviderCallError(`${message}${tries}`, { cause: error });
    }
  }

  return {
    chat: (model, request) =>
      call(
        'chat',
        model,
        (access) => ({ model: access.model, ...request }),
        (access, signal) => chatCompletion(access, request, signal, options.dispatcher),
        (reply) => reply.content,
      ),
    embed: (model, input) =>
      call(
        'embedding',
        model,
        (access) => ({ model: access.model, input }),
        (access, signal) => createEmbeddings(access, input, signal, options.dispatcher),
        (reply) => ({ dimensions: reply.vectors[0]?.length ?? 0 }),
      ),
  };
}
