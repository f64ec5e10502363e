import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema } from './print.js';

describe('schema.graphql', () => {
  it('is the printed schema (run `npm run schema:print` after changing GraphQL types)', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printedSchema());
  });
});
