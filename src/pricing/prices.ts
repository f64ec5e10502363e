// What model calls cost, for calls that report no cost themselves: USD per 1M tokens, input,
// output and cached input, as the providers publish them. The longest matching prefix wins, so a
// dated model name ("gpt-4o-2024-08-06") finds its family's price.
export interface ModelPrice {
  model: string;
  input: number;
  output: number;
  cachedInput?: number;
}

export interface TokenUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  cached_tokens?: number | null;
}

const prices: ModelPrice[] = [
  { model: 'gpt-4o-mini', input: 0.15, output: 0.6, cachedInput: 0.075 },
  { model: 'gpt-4o', input: 2.5, output: 10, cachedInput: 1.25 },
  { model: 'gpt-4.1-nano', input: 0.1, output: 0.4, cachedInput: 0.025 },
  { model: 'gpt-4.1-mini', input: 0.4, output: 1.6, cachedInput: 0.1 },
  { model: 'gpt-4.1', input: 2, output: 8, cachedInput: 0.5 },
  { model: 'gpt-4-turbo', input: 10, output: 30 },
  { model: 'gpt-3.5-turbo', input: 0.5, output: 1.5 },
  { model: 'gpt-5-nano', input: 0.05, output: 0.4, cachedInput: 0.005 },
  { model: 'gpt-5-mini', input: 0.25, output: 2, cachedInput: 0.025 },
  { model: 'gpt-5', input: 1.25, output: 10, cachedInput: 0.125 },
  { model: 'o1-mini', input: 1.1, output: 4.4, cachedInput: 0.55 },
  { model: 'o1', input: 15, output: 60, cachedInput: 7.5 },
  { model: 'o3-mini', input: 1.1, output: 4.4, cachedInput: 0.55 },
  { model: 'o3', input: 2, output: 8, cachedInput: 0.5 },
  { model: 'o4-mini', input: 1.1, output: 4.4, cachedInput: 0.275 },
  { model: 'text-embedding-3-small', input: 0.02, output: 0 },
  { model: 'text-embedding-3-large', input: 0.13, output: 0 },
  { model: 'claude-3-5-haiku', input: 0.8, output: 4, cachedInput: 0.08 },
  { model: 'claude-3-5-sonnet', input: 3, output: 15, cachedInput: 0.3 },
  { model: 'claude-3-7-sonnet', input: 3, output: 15, cachedInput: 0.3 },
  { model: 'claude-sonnet-4', input: 3, output: 15, cachedInput: 0.3 },
  { model: 'claude-opus-4', input: 15, output: 75, cachedInput: 1.5 },
  { model: 'claude-haiku-4', input: 1, output: 5, cachedInput: 0.1 },
  { model: 'mistral-large', input: 2, output: 6 },
  { model: 'mistral-small', input: 0.1, output: 0.3 },
  { model: 'gemini-2.0-flash', input: 0.1, output: 0.4, cachedInput: 0.025 },
  { model: 'gemini-2.5-flash', input: 0.3, output: 2.5, cachedInput: 0.075 },
  { model: 'gemini-2.5-pro', input: 1.25, output: 10, cachedInput: 0.31 },
].sort((a, b) => b.model.length - a.model.length);

export function priceOf(model: string | null | undefined): ModelPrice | undefined {
  if (!model) return undefined;
  const name = model.toLowerCase().replace(/^[a-z]+\//, '');
  return prices.find((price) => name.startsWith(price.model));
}

/** USD for `usage` on `model`, or null when the model has no known price or no usage was reported. */
export function costOf(model: string | null | undefined, usage: TokenUsage | null | undefined): number | null {
  const price = priceOf(model);
  if (!price || !usage) return null;
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  const cached = Math.min(usage.cached_tokens ?? 0, prompt);
  const cost = ((prompt - cached) * price.input + cached * (price.cachedInput ?? price.input) + completion * price.output) / 1_000_000;
  return Number(cost.toPrecision(12));
}
