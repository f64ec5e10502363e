// The pricing entry point (docs/ui.md#routes-and-preloading): the administration's Prices.
import { loadQuery, type PreloadedQuery } from 'react-relay';
import PricesQueryNode, { type PricesQuery } from '../__generated__/PricesQuery.graphql.ts';
import { entryPoint } from '../entrypoint.ts';

export interface PricesQueries {
  [name: string]: PreloadedQuery<PricesQuery>;
  prices: PreloadedQuery<PricesQuery>;
}

export const prices = entryPoint(
  async () => (await import('./Prices.tsx')).Prices,
  (environment): PricesQueries => ({ prices: loadQuery<PricesQuery>(environment, PricesQueryNode, {}, { fetchPolicy: 'store-and-network' }) }),
);
