// The graphql-sse protocol (docs/graphql.md): its "distinct connections" mode (one stream per
// operation) and its "single connection" mode, where a client reserves a stream with PUT, listens
// on it with the token it got, and starts (POST) and stops (DELETE) many operations over it.
// Yoga's own SSE answer on /graphql (Accept: text/event-stream) stays as it was.
import { useGraphQLSSE } from '@graphql-yoga/plugin-graphql-sse';

export const graphqlSseEndpoint = '/graphql/stream';

/** Every method the protocol uses, for the route that carries it to Yoga. */
export const graphqlSseMethods = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;

export function useGraphQLSSEProtocol() {
  return useGraphQLSSE({ endpoint: graphqlSseEndpoint });
}
