// One call to a provider's OpenAI-compatible API, shared by chat completions and embeddings.
import { excerpt } from '../shared/errors.js';
import type { Dispatcher } from 'undici';
import { postJson } from '../shared/http/client.js';
import { type CallSignal, PermanentError } from '../shared/retry.js';
import type { ProviderAccess } from './access.js';

/** POSTs `{model, …body}` to `path`; answers the parsed reply, and its text for error messages. */
export async function callProvider(access: ProviderAccess, path: string, body: Record<string, unknown>, signal: CallSignal, dispatcher: Dispatcher) {
  const text = await postJson(
    `${access.baseUrl}${path}`,
    { model: access.model, ...body },
    { peer: access.provider, signal, dispatcher, headers: access.apiKey ? { authorization: `Bearer ${access.apiKey}` } : {} },
  );
  try {
    return { reply: JSON.parse(text) as unknown, text };
  } catch {
    throw new PermanentError(`${access.provider} answered with something other than JSON: ${excerpt(text, 300)}`);
  }
}
