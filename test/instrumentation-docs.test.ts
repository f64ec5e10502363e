// docs/instrumentation.md#what-assay-reads is the mapping's rule tables written out: the page must
// hold exactly what scripts/attribute-tables.ts writes from them today.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { attributeTables } from '../scripts/attribute-tables.js';

it('docs/instrumentation.md holds the attribute tables of the current rules (npx tsx scripts/attribute-tables.ts)', () => {
  const page = readFileSync(join(import.meta.dirname, '..', 'docs', 'instrumentation.md'), 'utf8');
  const block = /<!-- attribute-tables:begin -->\n([\s\S]*?)\n<!-- attribute-tables:end -->/.exec(page);
  expect(block?.[1]).toBe(attributeTables());
});
