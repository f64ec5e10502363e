// REST routes of model prices: list (built-in and the project's own), add or correct, delete,
// and which price applies to a model at a time.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { restRoutes } from '../shared/http/route.js';
import { priceInput, priceListQuery, priceResolveQuery } from './inputs.js';
import * as prices from './operations.js';
import { priceJson, priceResponse } from './responses.js';

const tag = 'observability';

export function pricingRoutes(app: FastifyInstance): void {
  const rest = restRoutes(app);
  rest.get(
    '/observability/prices',
    { tag, summary: 'List model prices (built-in and your own)', query: priceListQuery, response: z.array(priceResponse) },
    async (req, { query }) => (await prices.listPrices(req.ctx, query)).map(priceJson),
  );
  rest.get(
    '/observability/prices/resolve',
    { tag, summary: 'The price that applies to a model at a time', query: priceResolveQuery, response: priceResponse, errors: [404] },
    async (req, { query }) => priceJson(await prices.resolvePrice(req.ctx, query.model, query.at)),
  );
  rest.post(
    '/observability/prices',
    {
      tag,
      summary: 'Add or correct a model price',
      body: priceInput,
      response: priceResponse,
      examples: { 'gpt-4o-mini': { model: 'gpt-4o-mini', input: 0.15, output: 0.6, cached_input: 0.075, effective_from: '2024-07-18' } },
    },
    async (req, { body }) => priceJson(await prices.upsertPrice(req.ctx, body)),
  );
  rest.delete('/observability/prices/:price_id', { tag, summary: 'Delete one of your prices', noContent: true, errors: [404] }, (req, { params }) =>
    prices.deletePrice(req.ctx, params.price_id),
  );
}
