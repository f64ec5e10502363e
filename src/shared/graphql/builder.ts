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
    nodeQueryOptions: {
      description: 'The object with this global id; null when there is none in the project.',
      args: { id: { description: 'A global id, as any `id` field answers it.' } },
    },
    nodesQueryOptions: {
      description: 'The objects with these global ids, in the order asked; null where there is none.',
      args: { ids: { description: 'Global ids, as `id` fields answer them.' } },
    },
    idFieldOptions: { description: 'Global id: opaque, unique across types; pass it to `node(id:)`.' },
    // Every connection and edge type, PageInfo and the paging arguments share these descriptions
    // (docs/graphql.md#descriptions); a connection may give its own type description.
    pageInfoTypeOptions: { description: 'Where a page stands in its list, and the cursors to fetch the next or previous one.' },
    hasNextPageFieldOptions: { description: 'True when more items follow this page: fetch them with `after: endCursor`.' },
    hasPreviousPageFieldOptions: { description: 'True when items precede this page: fetch them with `before: startCursor`.' },
    startCursorFieldOptions: { description: "The first edge's cursor; null on an empty page." },
    endCursorFieldOptions: { description: "The last edge's cursor; null on an empty page." },
    pageInfoFieldOptions: { description: 'How to fetch the pages before and after this one.' },
    edgesFieldOptions: { description: 'The items of this page, each with its cursor.' },
    nodeFieldOptions: { description: 'The item.' },
    cursorFieldOptions: { description: 'Opaque; pass it as `after` or `before` to page from this item.' },
    firstArgOptions: { description: 'At most this many items after `after` (or from the start).' },
    afterArgOptions: { description: 'Start after the item with this cursor (an `endCursor` or edge cursor).' },
    lastArgOptions: { description: 'At most this many items before `before` (or up to the end).' },
    beforeArgOptions: { description: 'End before the item with this cursor (a `startCursor` or edge cursor).' },
    defaultConnectionTypeOptions: { description: 'A page of a list: its items and how to reach the next page.' },
    defaultEdgeTypeOptions: { description: 'An item of a page and its cursor.' },
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

// graphql-scalars describes DateTime and JSON itself.
builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
builder.queryType({ description: "Reads within the caller's project (needs the read scope)." });
builder.mutationType({ description: "Writes within the caller's project; each needs the write scope unless its description names another." });
builder.subscriptionType({ description: "Live updates within the caller's project, sent as server-sent events (needs the read scope)." });
