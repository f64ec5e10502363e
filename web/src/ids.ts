// URLs carry the ids REST uses (docs/ui.md#urls); GraphQL arguments take global ids, which are
// Pothos' base64 of `<Type>:<id>` (docs/graphql.md#ids).

/** The global id of the `typename` whose REST id is `id`. */
export function globalIdOf(typename: string, id: string): string {
  return btoa(`${typename}:${id}`);
}
