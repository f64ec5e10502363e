// REST routes of model prices: list (built-in and the project's own), add or correct, delete,
// and which price applies to a model at a time.
import type { FastifyInstance } from 'fastify';
import { parseInput } from '../shared/validation.js';
import { priceInput, priceListQuery, priceResolveQuery } from './inputs.js';
import * as prices from './operations.js';

export function pricingRoutes(app: FastifyInstance): void {
  app.get('/observability/prices', async (req) =>
    (await prices.listPrices(req.ctx, parseInput(priceListQuery, req.query, 'query'))).map(prices.priceJson),
  );
  app.get('/observability/prices/resolve', async (req) => {
    const query = parseInput(priceResolveQuery, req.query, 'query');
    return prices.priceJson(await prices.resolvePrice(req.ctx, query.model, query.at));
  });
  app.post('/observability/prices', async (req) => prices.priceJson(await prices.upsertPrice(req.ctx, parseInput(priceInput, req.body, 'body'))));
  app.delete<{ Params: { price_id: string } }>('/observability/prices/:price_id', async (req, reply) => {
    await prices.deletePrice(req.ctx, req.params.price_id);
    return reply.code(204).send();
  });
}
