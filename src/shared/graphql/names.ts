// GraphQL names follow GraphQL's conventions, REST keeps the contract's (docs/graphql.md#conventions):
// fields and arguments camelCase there, snake_case here; enum values upper case there, the stored
// lowercase values here. These turn one into the other where the two meet.

/** `appId` → `app_id`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

interface RestNames {
  /** Fields that are input objects (or lists of them) themselves; JSON fields are kept as sent. */
  nested?: readonly string[];
  /** Fields whose REST name is not their snake_case (the contract's own spellings). */
  names?: Readonly<Record<string, string>>;
}

/**
 * An input object's fields under REST's names, so the REST schema (inputs.ts) checks it and reports
 * its faults as REST does. Absent fields are left out, as a REST body has none.
 */
export function restFields(input: object, { nested = [], names = {} }: RestNames = {}): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const inner = (item: unknown) => (item !== null && typeof item === 'object' ? restFields(item) : item);
    fields[names[name] ?? snakeCase(name)] = nested.includes(name) ? (Array.isArray(value) ? value.map(inner) : inner(value)) : plainIds(value);
  }
  return fields;
}

/** A global-id field arrives decoded (`{typename, id}`, docs/graphql.md#ids); REST takes its id. */
function plainIds(value: unknown): unknown {
  const plain = (item: unknown) => (item !== null && typeof item === 'object' && 'typename' in item && 'id' in item ? item.id : item);
  return Array.isArray(value) ? value.map(plain) : plain(value);
}

/** `api_key.created` → `api_key_created`: a dot cannot be in a GraphQL name. */
type Dotless<S extends string> = S extends `${infer Head}.${infer Tail}` ? `${Head}_${Dotless<Tail>}` : S;

type UpperCaseValues<V extends readonly string[]> = { [K in V[number] as Uppercase<Dotless<K>>]: { value: K; description?: string } };

/**
 * Enum values for `builder.enumType`: `endpoint` is `ENDPOINT` in the schema, `endpoint` inside
 * (`api_key.created` is `API_KEY_CREATED`);
 * `descriptions`, when given, names every value (the schema documents each, docs/graphql.md#descriptions).
 */
export function upperCaseValues<const V extends readonly string[]>(values: V, descriptions?: { readonly [K in V[number]]: string }): UpperCaseValues<V> {
  return Object.fromEntries(
    values.map((value: V[number]) => [value.replaceAll('.', '_').toUpperCase(), descriptions ? { value, description: descriptions[value] } : { value }]),
  ) as UpperCaseValues<V>;
}
