// GraphQL of model prices: the same operations as REST (routes.ts), the same validation.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { builder } from '../shared/graphql/builder.js';
import { globalId, inIdOrder } from '../shared/graphql/ids.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { priceInput, priceListQuery } from './inputs.js';
import * as prices from './operations.js';
import { priceJson, type PriceJson } from './responses.js';

const PriceSource = builder.enumType('PriceSource', {
  description: 'Where a price comes from.',
  values: upperCaseValues(['builtin', 'user'], {
    builtin: "Assay's built-in price table; it cannot be changed or deleted.",
    user: "The project's own, set with `upsertModelPrice`.",
  }),
});

// A user's price is keyed by its row id; a built-in one, which has none, by its date and model, so
// every price has a global id (docs/graphql.md#ids).
const builtinKey = 'builtin:';

function priceKey(price: PriceJson): string {
  return price.id ?? `${builtinKey}${price.effective_from}:${price.model}`;
}

const ModelPrice = builder.node(builder.objectRef<PriceJson>('ModelPrice'), {
  description: 'USD per 1M tokens of a model (or a family: a prefix of dated names), from a date on.',
  id: { resolve: priceKey },
  loadMany: async (keys, ctx) =>
    inIdOrder(
      keys,
      (await prices.listPrices(ctx)).map((entry) => priceJson(entry)),
      priceKey,
    ),
  fields: (t) => ({
    databaseId: t.string({
      description: 'The id REST uses; a built-in price, which REST lists without an id and cannot be deleted, has `builtin:<effective date>:<model>`.',
      resolve: priceKey,
    }),
    model: t.exposeString('model', { description: 'The model name, or a prefix that prices every dated name starting with it.' }),
    input: t.exposeFloat('input', { description: 'USD per 1M prompt tokens.' }),
    output: t.exposeFloat('output', { description: 'USD per 1M completion tokens.' }),
    cachedInput: t.exposeFloat('cached_input', { nullable: true, description: 'USD per 1M cached prompt tokens; null when the input price applies.' }),
    effectiveFrom: t.expose('effective_from', { type: 'DateTime', description: 'The price applies from this moment until a later price of the same model.' }),
    source: t.expose('source', { type: PriceSource, description: 'Built-in or the project’s own.' }),
  }),
});

const ModelPriceInput = builder.inputType('ModelPriceInput', {
  description: 'A price for `upsertModelPrice` (REST: the body of `POST /observability/prices`).',
  fields: (t) => ({
    model: t.string({ required: true, description: 'The model name, or a prefix that prices every dated name starting with it.' }),
    input: t.float({ required: true, description: 'USD per 1M prompt tokens.' }),
    output: t.float({ required: true, description: 'USD per 1M completion tokens.' }),
    cachedInput: t.float({ description: 'USD per 1M cached prompt tokens; absent: the input price applies.' }),
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
      args: {
        model: t.arg.string({ description: 'Only prices of this model name or prefix.' }),
        source: t.arg({ type: PriceSource, description: 'Only built-in or only the project’s own prices.' }),
      },
      resolve: async (_root, args, ctx) => {
        const filter = parseInput(priceListQuery, { model: args.model ?? undefined, source: args.source ?? undefined }, 'query');
        return resolveArrayConnection({ args }, (await prices.listPrices(ctx, filter)).map(priceJson));
      },
    },
    ModelPriceConnection,
  ),
  modelPrice: t.field({
    type: ModelPrice,
    nullable: true,
    description: 'The price that applies to `model` at `at` (now by default).',
    args: {
      model: t.arg.string({ required: true, description: 'A model name as spans report it, e.g. "gpt-4o-2024-08-06".' }),
      at: t.arg({ type: 'DateTime', description: 'The moment the price should apply at; now when absent.' }),
    },
    resolve: async (_root, args, ctx) => priceJson(await prices.resolvePrice(ctx, args.model, args.at ?? undefined)),
  }),
}));

builder.mutationFields((t) => ({
  upsertModelPrice: t.field({
    type: ModelPrice,
    description: 'Adds a price, or corrects the project’s price of the same model and effective date.',
    args: { input: t.arg({ type: ModelPriceInput, required: true, description: 'The price.' }) },
    resolve: async (_root, args, ctx) => priceJson(await prices.upsertPrice(ctx, parseInput(priceInput, restFields(args.input), 'body'))),
  }),
  deleteModelPrice: t.id({
    description: "Deletes one of the project's own prices; answers its global id.",
    args: { id: t.arg.globalID({ for: ModelPrice, required: true, description: 'The global id of a ModelPrice of source USER.' }) },
    resolve: async (_root, args, ctx) => {
      await prices.deletePrice(ctx, args.id.id);
      return globalId('ModelPrice', args.id.id);
    },
  }),
}));
