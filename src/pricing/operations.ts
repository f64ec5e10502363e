// Users' own model prices (SPEC §7 "which users can extend"): stored per project in ModelPrice,
// merged with the built-in table. A user's entry for a model and date wins over the built-in one;
// a user's entry for a longer (more specific) model name wins over a shorter one.
import type { RequestContext } from '../shared/context.js';
import type { Db } from '../shared/db.js';
import { NotFoundError } from '../shared/errors.js';
import { builtinPrices, costAt, findPrice, normaliseModelName, type PriceEntry, type TokenUsage } from './prices.js';

export interface PriceInput {
  model: string;
  input: number;
  output: number;
  cached_input?: number | null;
  effective_from?: Date | null;
}

export type UserPriceRow = Awaited<ReturnType<Db['modelPrice']['findFirstOrThrow']>>;

/** The JSON of a price, REST and GraphQL alike. */
export interface PriceJson {
  id: string | null;
  model: string;
  input: number;
  output: number;
  cached_input: number | null;
  effective_from: string;
  source: 'builtin' | 'user';
}

export function priceJson(entry: PriceEntry): PriceJson {
  return {
    id: entry.id ?? null,
    model: entry.model,
    input: entry.input,
    output: entry.output,
    cached_input: entry.cachedInput ?? null,
    effective_from: entry.effectiveFrom.toISOString(),
    source: entry.source,
  };
}

function userEntry(row: UserPriceRow): PriceEntry {
  return {
    id: row.id,
    model: row.model,
    input: row.input,
    output: row.output,
    ...(row.cachedInput !== null ? { cachedInput: row.cachedInput } : {}),
    effectiveFrom: row.effectiveFrom,
    source: 'user',
  };
}

// Price books are read on every span write; cached per database and project, and dropped when a
// user price of the project changes in this process (the only writer of ModelPrice).
const books = new WeakMap<Db, Map<string, Promise<PriceEntry[]>>>();

function dropBook(ctx: RequestContext): void {
  books.get(ctx.db)?.delete(ctx.projectId);
}

/** The prices that apply in the caller's project: its own, then the built-in table. */
export function priceBook(ctx: Pick<RequestContext, 'db' | 'projectId'>): Promise<PriceEntry[]> {
  let byProject = books.get(ctx.db);
  if (!byProject) books.set(ctx.db, (byProject = new Map()));
  let book = byProject.get(ctx.projectId);
  if (!book) {
    book = ctx.db.modelPrice
      .findMany({ where: { projectId: ctx.projectId }, orderBy: [{ model: 'asc' }, { effectiveFrom: 'asc' }] })
      .then((rows) => [...rows.map(userEntry), ...builtinPrices]);
    book.catch(() => byProject!.delete(ctx.projectId));
    byProject.set(ctx.projectId, book);
  }
  return book;
}

/** USD for `usage` on `model` at time `at` with the project's prices, or null when unknown. */
export function costFromBook(book: readonly PriceEntry[], model: string | null | undefined, usage: TokenUsage, at: Date): number | null {
  const price = findPrice(book, model, at);
  return price ? costAt(price, usage) : null;
}

export interface PriceFilter {
  /** Only prices that would apply to this model name (its family's entries). */
  model?: string;
  source?: 'builtin' | 'user';
}

/** Every price in the project: user entries first, then built-in; each group by model, then date. */
export async function listPrices(ctx: RequestContext, filter: PriceFilter = {}): Promise<PriceEntry[]> {
  let entries = await priceBook(ctx);
  if (filter.source) entries = entries.filter((entry) => entry.source === filter.source);
  if (filter.model) {
    const name = normaliseModelName(filter.model);
    entries = entries.filter((entry) => {
      const model = normaliseModelName(entry.model);
      return name === model || (name.startsWith(model) && '-:@_'.includes(name[model.length]!)) || model.startsWith(name);
    });
  }
  return entries;
}

/** The price that applies to `model` at `at` (now by default), or a 404. */
export async function resolvePrice(ctx: RequestContext, model: string, at: Date = new Date()): Promise<PriceEntry> {
  const price = findPrice(await priceBook(ctx), model, at);
  if (!price) throw new NotFoundError('Price for model', model);
  return price;
}

/**
 * Adds a price, or replaces the user's price of the same model and effective date (so posting
 * a price again corrects it). The model is stored as given, trimmed; matching ignores case.
 */
export async function upsertPrice(ctx: RequestContext, input: PriceInput): Promise<PriceEntry> {
  const effectiveFrom = input.effective_from ?? new Date(0);
  const model = input.model.trim();
  const values = { input: input.input, output: input.output, cachedInput: input.cached_input ?? null };
  const row = await ctx.db.modelPrice.upsert({
    where: { projectId_model_effectiveFrom: { projectId: ctx.projectId, model, effectiveFrom } },
    create: { projectId: ctx.projectId, model, effectiveFrom, ...values },
    update: values,
  });
  dropBook(ctx);
  return userEntry(row);
}

export async function deletePrice(ctx: RequestContext, id: string): Promise<void> {
  const { count } = await ctx.db.modelPrice.deleteMany({ where: { id, projectId: ctx.projectId } });
  dropBook(ctx);
  if (count === 0) throw new NotFoundError('Price', id);
}
