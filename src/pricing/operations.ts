// Users' own model prices (docs/observability.md#prices): stored per project in ModelPrice,
// merged with the built-in table. A user's entry for a model and date wins over the built-in one;
// a user's entry for a longer (more specific) model name wins over a shorter one.
import type { RequestContext, Services } from '../shared/context.js';
import type { Db } from '../shared/db.js';
import { NotFoundError } from '../shared/errors.js';
import { follow } from '../shared/events.js';
import { builtinPrices, PriceList, type PriceEntry } from './prices.js';

export interface PriceInput {
  model: string;
  input: number;
  output: number;
  cached_input?: number | null;
  effective_from?: Date | null;
}

export type UserPriceRow = Awaited<ReturnType<Db['modelPrice']['findFirstOrThrow']>>;

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

// A project's price list is read on every span write and evaluation batch: kept in
// `Services.priceLists` (one per project) and dropped when a price of the project changes, here or
// in another instance (`prices:changed`, docs/operations.md#several-instances).
declare module '../shared/context.js' {
  interface Services {
    /** Each project's price list, by project id (`priceList`). */
    priceLists: Map<string, Promise<PriceList>>;
  }
}

/** Drops the project's list here at once, and in the other instances through the event. */
async function dropPriceList(ctx: RequestContext): Promise<void> {
  ctx.priceLists.delete(ctx.projectId);
  ctx.events.publish('prices:changed', ctx.projectId);
  await ctx.events.flush();
}

/**
 * Drops the price lists other instances change (a list being read is dropped with its promise, so
 * no answer read before the change stays), and every list once events may have been missed.
 */
export function followPriceChanges(services: Pick<Services, 'events' | 'priceLists'>): void {
  follow(services.events, 'prices:changed', (projectId) => services.priceLists.delete(projectId));
  follow(services.events, 'events:missed', () => services.priceLists.clear());
}

/**
 * The prices that apply in the caller's project (its own, then the built-in table), with the one
 * function that prices a model call: `PriceList.callCost` (docs/costs.md).
 */
export function priceList(ctx: Pick<RequestContext, 'db' | 'projectId' | 'priceLists'>): Promise<PriceList> {
  const lists = ctx.priceLists;
  let list = lists.get(ctx.projectId);
  if (!list) {
    list = ctx.db.modelPrice
      .findMany({ where: { projectId: ctx.projectId }, orderBy: [{ model: 'asc' }, { effectiveFrom: 'asc' }] })
      .then((rows) => new PriceList([...rows.map(userEntry), ...builtinPrices]));
    const pending = list;
    pending.catch(() => {
      if (lists.get(ctx.projectId) === pending) lists.delete(ctx.projectId);
    });
    lists.set(ctx.projectId, pending);
  }
  return list;
}

export interface PriceFilter {
  /** Only prices that would apply to this model name (its family's entries). */
  model?: string;
  source?: 'builtin' | 'user';
}

/** Every price in the project: user entries first, then built-in; each group by model, then date. */
export async function listPrices(ctx: RequestContext, filter: PriceFilter = {}): Promise<PriceEntry[]> {
  const list = await priceList(ctx);
  let entries = filter.model ? list.family(filter.model) : [...list.entries];
  if (filter.source) entries = entries.filter((entry) => entry.source === filter.source);
  return entries;
}

/** The price that applies to `model` at `at` (now by default), or a 404. */
export async function resolvePrice(ctx: RequestContext, model: string, at: Date = new Date()): Promise<PriceEntry> {
  const price = (await priceList(ctx)).find(model, at);
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
  await dropPriceList(ctx);
  return userEntry(row);
}

export async function deletePrice(ctx: RequestContext, id: string): Promise<void> {
  const { count } = await ctx.db.modelPrice.deleteMany({ where: { id, projectId: ctx.projectId } });
  await dropPriceList(ctx);
  if (count === 0) throw new NotFoundError('Price', id);
}
