// GraphQL of model prices: the same operations as REST (routes.ts), the same validation.
import { resolveArrayConnection } from '@pothos/plugin-relay';
import { builder } from '../shared/graphql/builder.js';
import { restFields, upperCaseValues } from '../shared/graphql/names.js';
import { parseInput } from '../shared/validation.js';
import { priceInput, priceListQuery } from './inputs.js';
import * as prices from './operations.js';

const PriceSource = builder.enumType('PriceSource', { values: upperCaseValues(['builtin', 'user']) });

const ModelPrice = builder.objectRef<prices.PriceJson>('ModelPrice').implement({
  description: 'USD per 1M tokens of a model (or a family: a prefix of dated names), from a date on.',
  fields: (t) => ({
    id: t.exposeID('id', { nullable: true, description: 'Set on user prices (needed to delete them).' }),
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
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await prices.deletePrice(ctx, String(args.id));
      return args.id;
    },
  }),
}));
