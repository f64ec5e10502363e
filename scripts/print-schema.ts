// Writes schema.graphql, the printed GraphQL schema (src/graphql/print.test.ts fails when it is stale).
import { writeFileSync } from 'node:fs';
import { printedSchema } from '../src/graphql/print.js';

writeFileSync(new URL('../schema.graphql', import.meta.url), printedSchema());
console.log('wrote schema.graphql');
