// Which provider serves a model, and with which key and base URL
// (docs/evaluations.md#what-a-variant-is-sent): a model named "<provider>/<name>" goes to that
// provider, any other to OpenAI. Keys given with a request (`lm_providers_keys`) win over the
// server's environment. Every provider is reached through its OpenAI-compatible API.
import { z } from 'zod';
import { isHttpUrl, providerSettingName } from '../shared/config.js';

/** OpenAI-compatible endpoints of common providers, used when no `<PROVIDER>_BASE_URL` is set. */
const defaultBaseUrls: Record<string, string> = {
  OPENAI: 'https://api.openai.com/v1',
  ANTHROPIC: 'https://api.anthropic.com/v1',
  MISTRAL: 'https://api.mistral.ai/v1',
  GROQ: 'https://api.groq.com/openai/v1',
  TOGETHERAI: 'https://api.together.xyz/v1',
  OPENROUTER: 'https://openrouter.ai/api/v1',
  DEEPINFRA: 'https://api.deepinfra.com/v1/openai',
  GEMINI: 'https://generativelanguage.googleapis.com/v1beta/openai',
};

/** `lm_providers_keys`: `{"OPENAI_API_KEY": "sk-…", "OPENAI_BASE_URL": "http://…"}`. */
export const providerKeysInput = z
  .record(
    z.string().refine((key) => providerSettingName.test(key), {
      message: 'Keys are <PROVIDER>_API_KEY or <PROVIDER>_BASE_URL, e.g. OPENAI_API_KEY',
      params: { type: 'string_pattern_mismatch' },
    }),
    z.string(),
  )
  .superRefine((keys, ctx) => {
    // A base URL is where the service sends the key and the prompts: an unreadable one is the
    // request's fault (422), not a call failing later (docs/access.md#outbound-calls).
    for (const [name, value] of Object.entries(keys)) {
      if (name.endsWith('_BASE_URL') && value && !isHttpUrl(value)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'Input should be a valid URL with scheme http or https', params: { type: 'url_parsing' } });
      }
    }
  });
export type ProviderKeys = z.output<typeof providerKeysInput>;

export interface ProviderAccess {
  provider: string;
  /** The model name the provider knows (without the "<provider>/" prefix). */
  model: string;
  baseUrl: string;
  apiKey: string | undefined;
}

export function providerOf(model: string): { provider: string; model: string } {
  const slash = model.indexOf('/');
  if (slash > 0) {
    const provider = model
      .slice(0, slash)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '');
    if (provider) return { provider, model: model.slice(slash + 1) };
  }
  return { provider: 'OPENAI', model };
}

export function providerAccess(model: string, keys: ProviderKeys | null | undefined, env: Record<string, string>): ProviderAccess {
  const { provider, model: name } = providerOf(model);
  const setting = (suffix: string) => keys?.[`${provider}_${suffix}`] || env[`${provider}_${suffix}`];
  return {
    provider,
    model: name,
    baseUrl: (setting('BASE_URL') ?? defaultBaseUrls[provider] ?? defaultBaseUrls.OPENAI).replace(/\/+$/, ''),
    apiKey: setting('API_KEY'),
  };
}

/**
 * The key `model`'s provider lacks ("OPENAI_API_KEY"), or null when the request's keys or the
 * server's environment give one: the check both evaluation kinds make before they start, and the
 * provider client before each call.
 */
export function missingProviderKey(model: string, keys: ProviderKeys | null | undefined, env: Record<string, string>): string | null {
  const access = providerAccess(model, keys, env);
  return access.apiKey ? null : `${access.provider}_API_KEY`;
}

/** What a run lacking `names` is told. */
export function missingKeysMessage(names: readonly string[]): string {
  return `No provider key for ${names.join(', ')}: give it in lm_providers_keys or set it in the server's environment`;
}
