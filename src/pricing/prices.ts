// What model calls cost, for calls that report no cost themselves: USD per 1M tokens, input,
// output and cached input, as the providers publish them, each from the date it took effect.
//
// Matching: a model name is lower-cased and a provider prefix ("openai/", "anthropic.") dropped;
// an entry matches when its model is the whole name or a prefix of it that ends where the name
// goes on with "-", ":", "@" or "_", so a dated name ("gpt-4o-2024-08-06") finds its family's
// price while "gpt-4" never prices "gpt-4o" or "gpt-4.1". The longest matching entry wins; among
// its dated entries, the latest that took effect no later than the call.
import { roundCost } from '../shared/money.js';

export interface ModelPrice {
  model: string;
  /** USD per 1M input (prompt) tokens. */
  input: number;
  /** USD per 1M output (completion) tokens. */
  output: number;
  /** USD per 1M input tokens read from the provider's prompt cache; the input price when absent. */
  cachedInput?: number;
  /** The first day the price applies (UTC). */
  effectiveFrom?: Date;
}

/** A price with where it comes from: the built-in table, or one a user added (an id then). */
export interface PriceEntry extends ModelPrice {
  effectiveFrom: Date;
  source: 'builtin' | 'user';
  id?: string;
}

export interface TokenUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  /** Part of prompt_tokens. */
  cached_tokens?: number | null;
}

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
/** Entries with no known start apply from the epoch. */
const always = new Date(0);

type Row = [model: string, input: number, output: number, cachedInput: number | undefined, from?: string];

// Public list prices (standard tier) as of late 2025. Earlier prices of a family are kept
// with their dates, so old traces keep the cost they had.
const rows: Row[] = [
  // OpenAI
  ['gpt-4o', 5, 15, undefined, '2024-05-13'],
  ['gpt-4o', 2.5, 10, 1.25, '2024-10-02'],
  ['gpt-4o-mini', 0.15, 0.6, 0.075, '2024-07-18'],
  ['gpt-4.1', 2, 8, 0.5, '2025-04-14'],
  ['gpt-4.1-mini', 0.4, 1.6, 0.1, '2025-04-14'],
  ['gpt-4.1-nano', 0.1, 0.4, 0.025, '2025-04-14'],
  ['gpt-4-turbo', 10, 30, undefined],
  ['gpt-4', 30, 60, undefined],
  ['gpt-3.5-turbo', 0.5, 1.5, undefined],
  ['gpt-5', 1.25, 10, 0.125, '2025-08-07'],
  ['gpt-5-mini', 0.25, 2, 0.025, '2025-08-07'],
  ['gpt-5-nano', 0.05, 0.4, 0.005, '2025-08-07'],
  ['gpt-5.1', 1.25, 10, 0.125, '2025-11-13'],
  ['o1', 15, 60, 7.5],
  ['o1-mini', 3, 12, 1.5],
  ['o1-mini', 1.1, 4.4, 0.55, '2024-12-17'],
  ['o3', 10, 40, 2.5, '2025-04-16'],
  ['o3', 2, 8, 0.5, '2025-06-10'],
  ['o3-mini', 1.1, 4.4, 0.55, '2025-01-31'],
  ['o4-mini', 1.1, 4.4, 0.275, '2025-04-16'],
  ['text-embedding-3-small', 0.02, 0, undefined],
  ['text-embedding-3-large', 0.13, 0, undefined],
  ['text-embedding-ada-002', 0.1, 0, undefined],
  // Anthropic (cached = cache reads)
  ['claude-3-haiku', 0.25, 1.25, 0.03],
  ['claude-3-opus', 15, 75, 1.5],
  ['claude-3-5-haiku', 0.8, 4, 0.08],
  ['claude-3-5-sonnet', 3, 15, 0.3],
  ['claude-3-7-sonnet', 3, 15, 0.3],
  ['claude-sonnet-4', 3, 15, 0.3, '2025-05-22'],
  ['claude-sonnet-4-5', 3, 15, 0.3, '2025-09-29'],
  ['claude-opus-4', 15, 75, 1.5, '2025-05-22'],
  ['claude-opus-4-1', 15, 75, 1.5, '2025-08-05'],
  ['claude-opus-4-5', 5, 25, 0.5, '2025-11-24'],
  ['claude-haiku-4-5', 1, 5, 0.1, '2025-10-15'],
  // Google
  ['gemini-1.5-flash', 0.075, 0.3, 0.01875],
  ['gemini-1.5-pro', 1.25, 5, 0.3125],
  ['gemini-2.0-flash', 0.1, 0.4, 0.025],
  ['gemini-2.0-flash-lite', 0.075, 0.3, undefined],
  ['gemini-2.5-flash', 0.3, 2.5, 0.075, '2025-06-17'],
  ['gemini-2.5-flash-lite', 0.1, 0.4, 0.025, '2025-06-17'],
  ['gemini-2.5-pro', 1.25, 10, 0.31, '2025-06-17'],
  // Mistral
  ['mistral-large', 2, 6, undefined],
  ['mistral-medium', 0.4, 2, undefined],
  ['mistral-small', 0.1, 0.3, undefined],
  ['codestral', 0.3, 0.9, undefined],
  // Others commonly served behind OpenAI-compatible APIs
  ['command-r', 0.15, 0.6, undefined],
  ['command-r-plus', 2.5, 10, undefined],
  ['deepseek-chat', 0.27, 1.1, 0.07],
  ['deepseek-reasoner', 0.55, 2.19, 0.14],
];

/** The built-in table, every dated entry. */
export const builtinPrices: readonly PriceEntry[] = Object.freeze(
  rows.map(([model, input, output, cachedInput, from]) => ({
    model,
    input,
    output,
    ...(cachedInput !== undefined ? { cachedInput } : {}),
    effectiveFrom: from ? day(from) : always,
    source: 'builtin' as const,
  })),
);

/** The form prices are matched in: lower case, provider prefix dropped. */
export function normaliseModelName(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/^[a-z0-9_-]+\//, '')
    .replace(/^(anthropic|amazon|meta|mistral|cohere|ai21|google|openai)\./, '');
}

const boundary = new Set(['-', ':', '@', '_']);

/** Whether the price of `entryModel` (normalised) applies to `name` (normalised): the same model or its family. */
export function inFamily(entryModel: string, name: string): boolean {
  return name === entryModel || (name.startsWith(entryModel) && boundary.has(name[entryModel.length]));
}

/** What a call cost in USD (pico-dollars), and whether its client said so or we computed it. */
export interface CallCost {
  cost: number;
  source: 'reported' | 'computed';
}

/** Model names a `PriceList` remembers the matching entries of. */
const REMEMBERED_MODELS = 1000;

/**
 * A project's prices (its own, then the built-in table), and the one function that prices a
 * model call with them: ingestion and both evaluation runners use it (docs/costs.md).
 */
export class PriceList {
  /** Each entry's model, normalised once rather than for every call priced. */
  private readonly names: string[];
  /** `longestMatches`' answers by model name as sent. */
  private readonly matches = new Map<string, readonly PriceEntry[]>();

  constructor(readonly entries: readonly PriceEntry[]) {
    this.names = entries.map((entry) => normaliseModelName(entry.model));
  }

  /**
   * The price of `model` at time `at`: the longest matching model; among its entries, the latest
   * in effect at `at` (a user's entry winning over a built-in one of the same model and date). A
   * call dated before every entry of its model (a clock off, or test data) gets the model's
   * earliest price. Undefined when no entry matches.
   */
  find(model: string | null | undefined, at: Date = new Date()): PriceEntry | undefined {
    if (!model) return undefined;
    const time = at.getTime();
    let best: PriceEntry | undefined;
    let earliest: PriceEntry | undefined;
    for (const entry of this.longestMatches(model)) {
      const from = entry.effectiveFrom.getTime();
      if (!earliest || from < earliest.effectiveFrom.getTime()) earliest = entry;
      if (from > time) continue;
      if (!best) {
        best = entry;
        continue;
      }
      const newer = from - best.effectiveFrom.getTime();
      if (newer > 0 || (newer === 0 && entry.source === 'user' && best.source === 'builtin')) best = entry;
    }
    return best ?? earliest;
  }

  /**
   * The entries of the longest model name that prices `model`, in the list's order; remembered by
   * the name as sent, since ingestion prices every span and a project's spans name few models
   * (scanning the whole table for each cost several µs of the serving thread per span,
   * docs/observability.md#measurements). Forgotten all at once past `REMEMBERED_MODELS` names, so
   * a client sending endless names cannot grow it.
   */
  private longestMatches(model: string): readonly PriceEntry[] {
    const known = this.matches.get(model);
    if (known) return known;
    const name = normaliseModelName(model);
    const found: PriceEntry[] = [];
    let longest = -1;
    this.entries.forEach((entry, index) => {
      const entryModel = this.names[index];
      if (!inFamily(entryModel, name) || entryModel.length < longest) return;
      if (entryModel.length > longest) {
        longest = entryModel.length;
        found.length = 0;
      }
      found.push(entry);
    });
    if (this.matches.size >= REMEMBERED_MODELS) this.matches.clear();
    this.matches.set(model, found);
    return found;
  }

  /** Entries that could price `model`: its family's, and longer names that start with it. */
  family(model: string): PriceEntry[] {
    const name = normaliseModelName(model);
    return this.entries.filter((_, index) => inFamily(this.names[index], name) || this.names[index].startsWith(name));
  }

  /**
   * USD for `usage` on `model` at the price in effect at `at` (now by default), or null when the
   * model has no price or no usage was given.
   */
  costOf(model: string | null | undefined, usage: TokenUsage | null | undefined, at?: Date): number | null {
    if (!usage || (usage.prompt_tokens == null && usage.completion_tokens == null)) return null;
    const price = this.find(model, at);
    return price ? costAt(price, usage) : null;
  }

  /** The cost a client reported when it gave one (kept to the pico-dollar), else the computed one. */
  callCost(reported: number | null | undefined, model: string | null | undefined, usage: TokenUsage | null | undefined, at?: Date): CallCost | null {
    if (reported !== null && reported !== undefined && Number.isFinite(reported)) return { cost: roundCost(reported)!, source: 'reported' };
    const cost = this.costOf(model, usage, at);
    return cost === null ? null : { cost, source: 'computed' };
  }
}

/** The built-in table alone: the prices of a project that added none. */
export const builtinPriceList = new PriceList(builtinPrices);

/** USD for `usage` at `price`, to the pico-dollar. */
export function costAt(price: ModelPrice, usage: TokenUsage): number {
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  const cached = Math.min(usage.cached_tokens ?? 0, prompt);
  return roundCost(((prompt - cached) * price.input + cached * (price.cachedInput ?? price.input) + completion * price.output) / 1_000_000)!;
}
