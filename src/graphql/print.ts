import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './schema.js';

/** The schema as committed in schema.graphql: sorted, so the file changes only with the schema. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
