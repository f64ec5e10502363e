// Chat Completions against any OpenAI-compatible API: one call, with failures sorted into
// transient (retried by the caller) and permanent.
import type { Dispatcher } from 'undici';
import { excerpt } from '../shared/errors.js';
import { type CallSignal, PermanentError } from '../shared/retry.js';
import type { ProviderAccess } from './access.js';
import { callProvider } from './call.js';

export interface ChatMessage {
  role: string;
  content: string;
}

export interface ChatRequest {
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  top_p?: number;
  response_format?: Record<string, unknown>;
}

export interface ChatUsage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  total_tokens: number | null;
  cached_tokens: number | null;
}

export interface ChatReply {
  content: string;
  model: string;
  usage: ChatUsage | null;
}

/** The usage block of an OpenAI-style reply, or null. */
export function readUsage(value: unknown): ChatUsage | null {
  if (!value || typeof value !== 'object') return null;
  const usage = value as Record<string, unknown>;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : null);
  const details = usage.prompt_tokens_details as Record<string, unknown> | undefined;
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count(usage.total_tokens) ?? (prompt !== null || completion !== null ? (prompt ?? 0) + (completion ?? 0) : null),
    cached_tokens: count(details?.cached_tokens),
  };
}

/** The first choice's text of a chat completion object, or undefined when it is not one. */
export function completionText(value: unknown): string | undefined {
  const choices = (value as { choices?: unknown } | null)?.choices;
  if (!Array.isArray(choices) || choices.length === 0) return undefined;
  const message = (choices[0] as { message?: { content?: unknown } }).message;
  if (!message) return undefined;
  const content = message.content;
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  // Content parts: keep the text ones.
  if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? '').join('');
  return JSON.stringify(content);
}

/** A chat completion object as a ChatReply; `text` is what the provider sent, for the error message. */
export function readCompletion(access: ProviderAccess, reply: unknown, text: string): ChatReply {
  const content = completionText(reply);
  if (content === undefined) throw new PermanentError(`${access.provider} answered without choices: ${excerpt(text, 300)}`);
  const model = (reply as { model?: unknown }).model;
  return { content, model: typeof model === 'string' ? model : access.model, usage: readUsage((reply as { usage?: unknown }).usage) };
}

export async function chatCompletion(access: ProviderAccess, request: ChatRequest, signal: CallSignal, dispatcher: Dispatcher): Promise<ChatReply> {
  const { reply, text } = await callProvider(access, '/chat/completions', { ...request }, signal, dispatcher);
  return readCompletion(access, reply, text);
}
