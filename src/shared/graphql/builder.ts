// The one Pothos builder. Each domain adds its types in its own `graphql.ts`; schema.ts gathers
// them. Object types are defined over the Prisma models, so list queries are planned into a few
// SQL statements instead of one per row.
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import { createGraphQLError } from 'graphql-yoga';
import type PrismaTypes from '../../generated/pothos-types.js';
import { getDatamodel } from '../../generated/pothos-types.js';
import type { RequestContext } from '../context.js';

// Pothos names the exceeded limit by kind; these are the result's fields for its value and maximum.
const limitFields = {
  Depth: ['depth', 'maxDepth'],
  Breadth: ['breadth', 'maxBreadth'],
  Complexity: ['complexity', 'maxComplexity'],
} as const;

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: RequestContext;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  // Fields are non-null unless declared nullable, so the schema says what can be missing.
  defaultFieldNullability: false,
  plugins: [ComplexityPlugin, RelayPlugin, PrismaPlugin],
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
  // Relay Global Object Identification (docs/graphql.md#ids): every type with an id is a Node.
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeTypeOptions: { description: 'An object with a global id, refetchable with `node(id:)`.' },
    nodeQueryOptions: { description: 'The object with this global id; null when there is none in the project.' },
    nodesQueryOptions: { description: 'The objects with these global ids, in the order asked; null where there is none.' },
    idFieldOptions: { description: 'Global id: opaque, unique across types; pass it to `node(id:)`.' },
  },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    // Span trees nest `children`; 16 levels covers real agent traces while refusing queries
    // built to exhaust the server.
    limit: { complexity: 20_000, depth: 16, breadth: 300 },
    // A GraphQLError reaches the client as is; any other error would be masked.
    complexityError: (kind, result) => {
      const [value, max] = limitFields[kind];
      return createGraphQLError(`Query ${value} ${result[value]} exceeds the limit of ${result[max]}`, {
        extensions: { code: 'QUERY_TOO_COMPLEX' },
      });
    },
  },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
