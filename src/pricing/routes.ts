// REST routes of model prices: list (built-in and the project's own), add or correct, delete,
// and which price applies to a model at a time.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { described } from '../shared/http/openapi.js';
import { parseInput } from '../shared/validation.js';
import { priceInput, priceListQuery, priceResolveQuery } from './inputs.js';
import * as prices from './operations.js';
import { priceResponse } from './responses.js';

const tag = 'observability';

export function pricingRoutes(app: FastifyInstance): void {
  app.get(
    '/observability/prices',
    described({ tag, summary: 'List model prices (built-in and your own)', query: priceListQuery, response: z.array(priceResponse) }),
    async (req) =>
    (await prices.listPrices(req.ctx, parseInput(priceListQuery, req.query, 'query'))).map(prices.priceJson),
  );
  app.get(
    '/observability/prices/resolve',
    described({ tag, summary: 'The price that applies to a model at a time', query: priceResolveQuery, response: priceResponse, errors: [404] }),
    async (req) => {
    const query = parseInput(priceResolveQuery, req.query, 'query');
    return prices.priceJson(await prices.resolvePrice(req.ctx, query.model, query.at));
  });
  app.post(
    '/observability/prices',
    described({
      tag,
      summary: 'Add or correct a model price',
      body: priceInput,
      response: priceResponse,
      examples: { 'gpt-4o-mini': { model: 'gpt-4o-mini', input: 0.15, output: 0.6, cached_input: 0.075, effective_from: '2024-07-18' } },
    }),
    async (req) => prices.priceJson(await prices.upsertPrice(req.ctx, parseInput(priceInput, req.body, 'body'))));
  app.delete<{ Params: { price_id: string } }>(
    '/observability/prices/:price_id',
    described({ tag, summary: 'Delete one of your prices', noContent: true, errors: [404] }),
    async (req, reply) => {
    await prices.deletePrice(req.ctx, req.params.price_id);
    return reply.code(204).send();
  });
}
