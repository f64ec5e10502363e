// Automatic persisted queries (Apollo's APQ protocol, as urql's and Apollo's persisted-query links
// speak it): a request may carry only `extensions.persistedQuery.sha256Hash`; an unknown hash is
// answered PersistedQueryNotFound, and the client sends the query with its hash once to register
// it. The store is an LRU bounded by entries and by characters, one per Yoga instance
// (docs/graphql.md).
import { createHash } from 'node:crypto';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { documentLimits } from './limits.js';

export const apqStoreLimits = {
  /** Documents kept at once. */
  entries: 1_000,
  /** Characters of all kept documents together: 1,000 documents of the longest allowed size would not fit. */
  characters: 5_000_000,
} as const;

export type APQStore = LRUCache<string, string>;

export function createAPQStore(limits: { entries: number; characters: number } = apqStoreLimits): APQStore {
  return new LRUCache<string, string>({ max: limits.entries, maxSize: limits.characters, sizeCalculation: (query) => Math.max(1, query.length) });
}

function persistedQueryHash(extensions: Record<string, unknown> | undefined): string | null {
  const persisted = extensions?.persistedQuery as { version?: unknown; sha256Hash?: unknown } | undefined;
  if (persisted === undefined || persisted === null || typeof persisted !== 'object') return null;
  if (persisted.version !== 1) {
    throw protocolError('PersistedQueryNotSupported', 'PERSISTED_QUERY_NOT_SUPPORTED', 400, 'only version 1 of persistedQuery is supported');
  }
  if (typeof persisted.sha256Hash !== 'string' || !/^[0-9a-f]{64}$/i.test(persisted.sha256Hash)) {
    throw protocolError('PersistedQueryMismatch', 'PERSISTED_QUERY_MISMATCH', 400, 'persistedQuery.sha256Hash must be 64 hexadecimal digits');
  }
  return persisted.sha256Hash.toLowerCase();
}

// The message is the protocol's: clients match on it (urql) or on the code (Apollo).
function protocolError(message: string, code: string, status: number, reason?: string) {
  return createGraphQLError(message, { extensions: { code, ...(reason ? { reason } : {}), http: { status, spec: false } } });
}

export function useAPQ(store: APQStore): Plugin {
  return {
    onParams({ params, setParams }) {
      const hash = persistedQueryHash(params.extensions);
      if (hash === null) return;
      if (params.query == null) {
        const query = store.get(hash);
        // 200, not 404: a client reading the answer as a GraphQL result (urql, Apollo) retries
        // with the query; some treat a 4xx as a network failure instead.
        if (query === undefined) throw protocolError('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND', 200);
        setParams({ ...params, query });
        return;
      }
      if (typeof params.query !== 'string') return; // Yoga refuses it with its own message.
      if (createHash('sha256').update(params.query).digest('hex') !== hash) {
        throw protocolError('PersistedQueryMismatch', 'PERSISTED_QUERY_MISMATCH', 400, 'sha256Hash is not the hash of the query');
      }
      // A document over the length limit is refused before it runs: not worth a place in the store.
      if (params.query.length <= documentLimits.length) store.set(hash, params.query);
    },
  };
}
