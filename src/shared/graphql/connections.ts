// Connections whose whole size a screen shows (docs/graphql.md#counts): `totalCount` beside `edges`
// and `pageInfo`. The connection field asks Pothos' Prisma plugin for the count (`totalCount: true`
// on a related connection, which it selects as the relation's `_count` in the parent's query; a
// counting function on a root one), and the plugin hands it to the connection object.
import type { OutputType, SchemaTypes } from '@pothos/core';
import { builder } from './builder.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;

/** What the Prisma plugin puts on a connection whose field asks for a count: the count, or a function that counts. */
interface Counted {
  totalCount?: number | (() => number | Promise<number>);
}

/** A connection object with `totalCount`; every field that answers with it must ask for the count. */
export function countedConnection<Type extends OutputType<Types>>(type: Type, names: { name: string; description: string; edge: string }) {
  return builder.connectionObject(
    {
      type,
      name: names.name,
      description: names.description,
      fields: (t) => ({
        totalCount: t.int({
          description: 'How many items the whole list holds, across every page.',
          resolve: async (connection) => {
            const { totalCount } = connection as Counted;
            if (totalCount === undefined) throw new Error(`${names.name}: its field does not count (totalCount)`);
            return typeof totalCount === 'function' ? totalCount() : totalCount;
          },
        }),
      }),
    },
    { description: names.edge },
  );
}
