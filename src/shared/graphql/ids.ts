// Global ids (docs/graphql.md#ids): every `ID` in the schema is one, Pothos' encoding of a type
// name and the row's id. Foreign-key fields answer the global id of the node they refer to.
import { encodeGlobalID } from '@pothos/plugin-relay';
import { ValidationError } from '../errors.js';

/** The global id of `typename`'s row `id`; null stays null. */
export function globalId(typename: string, id: string): string;
export function globalId(typename: string, id: string | null): string | null;
export function globalId(typename: string, id: string | null): string | null {
  return id === null ? null : encodeGlobalID(typename, id);
}

/** The plain ids of decoded global-id arguments (`t.arg.globalID({ for })` checked their type). */
export function databaseIds(ids: readonly { id: string }[]): string[] {
  return ids.map(({ id }) => id);
}

/**
 * The plain id of a global id decoded without a `for` (a domain that may not import the type it
 * names, docs/architecture.md), checked to be a `typename`'s; else BAD_USER_INPUT naming `arg`.
 */
export function databaseIdOf(decoded: { typename: string; id: string } | null | undefined, typename: string, arg: string): string | undefined {
  if (decoded == null) return undefined;
  if (decoded.typename !== typename) throw ValidationError.at(['args', arg], `Input should be the global id of a ${typename}`, 'value_error');
  return decoded.id;
}

/**
 * What a Node's `loadMany` answers: `rows` lined up with `ids`, null where no row has that id
 * (unknown, or outside the caller's reach).
 */
export function inIdOrder<Row>(ids: readonly string[], rows: readonly Row[], idOf: (row: Row) => string = (row) => (row as { id: string }).id): (Row | null)[] {
  const byId = new Map(rows.map((row) => [idOf(row), row]));
  return ids.map((id) => byId.get(id) ?? null);
}
