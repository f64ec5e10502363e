// GraphQL of model prices: the same operations as REST (routes.ts), the same validation.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { builder } from '../shared/graphql/builder.js';
import { globalId } from '../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { priceInput, priceListQuery } from './inputs.js';
import * as prices from './operations.js';

const PriceSource = builder.enumType('PriceSource', { values: upperCaseValues(['builtin', 'user']) });

// A user's price is keyed by its row id; a built-in one, which has none, by its date and model, so
// every price has a global id (docs/graphql.md#ids).
const builtinKey = 'builtin:';

function priceKey(price: prices.PriceJson): string {
  return price.id ?? `${builtinKey}${price.effective_from}:${price.model}`;
}

const ModelPrice = builder.node(builder.objectRef<prices.PriceJson>('ModelPrice'), {
  description: 'USD per 1M tokens of a model (or a family: a prefix of dated names), from a date on.',
  id: { resolve: priceKey },
  loadMany: async (keys, ctx) => {
    const byKey = new Map((await prices.listPrices(ctx)).map((entry) => prices.priceJson(entry)).map((price) => [priceKey(price), price]));
    return keys.map((key) => byKey.get(key) ?? null);
  },
  fields: (t) => ({
    databaseId: t.string({
      description: 'The id REST uses; a built-in price, which REST lists without an id and cannot be deleted, has `builtin:<effective date>:<model>`.',
      resolve: priceKey,
    }),
    model: t.exposeString('model'),
    input: t.exposeFloat('input'),
    output: t.exposeFloat('output'),
    cachedInput: t.exposeFloat('cached_input', { nullable: true, description: 'Null: the input price applies.' }),
    effectiveFrom: t.expose('effective_from', { type: 'DateTime' }),
    source: t.expose('source', { type: PriceSource }),
  }),
});

const ModelPriceInput = builder.inputType('ModelPriceInput', {
  fields: (t) => ({
    model: t.string({ required: true }),
    input: t.float({ required: true }),
    output: t.float({ required: true }),
    cachedInput: t.float(),
    effectiveFrom: t.string({ description: 'ISO-8601 date or date-time; absent: always.' }),
  }),
});

const ModelPriceConnection = builder.connectionObject(
  { type: ModelPrice, name: 'ModelPriceConnection', description: 'Model prices, a page at a time.' },
  { description: 'A model price and its cursor.' },
);

builder.queryFields((t) => ({
  modelPrices: t.connection(
    {
      type: ModelPrice,
      description: "Prices in effect for the project: its own, then the built-in table's.",
      args: { model: t.arg.string(), source: t.arg({ type: PriceSource }) },
      resolve: async (_root, args, ctx) => {
        const filter = parseInput(priceListQuery, { model: args.model ?? undefined, source: args.source ?? undefined }, 'query');
        return resolveArrayConnection({ args }, (await prices.listPrices(ctx, filter)).map(prices.priceJson));
      },
    },
    ModelPriceConnection,
  ),
  modelPrice: t.field({
    type: ModelPrice,
    nullable: true,
    description: 'The price that applies to `model` at `at` (now by default).',
    args: { model: t.arg.string({ required: true }), at: t.arg({ type: 'DateTime' }) },
    resolve: async (_root, args, ctx) => prices.priceJson(await prices.resolvePrice(ctx, args.model, args.at ?? undefined)),
  }),
}));

builder.mutationFields((t) => ({
  upsertModelPrice: t.field({
    type: ModelPrice,
    description: 'Adds a price, or corrects the project’s price of the same model and effective date.',
    args: { input: t.arg({ type: ModelPriceInput, required: true }) },
    resolve: async (_root, args, ctx) => prices.priceJson(await prices.upsertPrice(ctx, parseInput(priceInput, restFields(args.input), 'body'))),
  }),
  deleteModelPrice: t.id({
    description: "Deletes one of the project's own prices; answers its global id.",
    args: { id: t.arg.globalID({ for: ModelPrice, required: true }) },
    resolve: async (_root, args, ctx) => {
      await prices.deletePrice(ctx, args.id.id);
      return globalId('ModelPrice', args.id.id);
    },
  }),
}));
