// The trace's variant in the roll-up (docs/observability.md#traces-of-a-revision): the variant,
// revision and app of the earliest span that names a variant, wherever it sits in the tree and
// whichever batch brought it; the root's app when no span names a variant; gone with its span.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { ingestSpans, legacySpan } from '../../../test/helpers/spans.js';

const server = useTestServer();

const link = async (traceId: string) => {
  const trace = await server.assay.db.trace.findFirst({ where: { traceId } });
  return trace && { appId: trace.appId, variantId: trace.variantId, variantName: trace.variantName, variantRevision: trace.variantRevision };
};

describe("a trace's variant", () => {
  it('is the earliest naming span’s, below the root too, and moves when an earlier one arrives', async () => {
    await ingestSpans(server, 'named-below', [
      legacySpan('root', null, 0, 10, { app_id: 'root-app' }),
      legacySpan('late', 'root', 5, 6, { variant_name: 'writer', revision: 4, app_id: 'writer-app' }),
      legacySpan('plain', 'root', 1, 2),
    ]);
    expect(await link('named-below')).toEqual({ appId: 'writer-app', variantId: null, variantName: 'writer', variantRevision: 4 });
    await ingestSpans(server, 'named-below', [legacySpan('early', 'root', 3, 4, { variant_id: 'variant-9', revision: 2 })]);
    // The span naming it gives no app: the root's stays.
    expect(await link('named-below')).toEqual({ appId: 'root-app', variantId: 'variant-9', variantName: null, variantRevision: 2 });
  });

  it("is none when no span names one, the app the root's", async () => {
    await ingestSpans(server, 'unnamed', [legacySpan('root', null, 0, 2, { app_id: 'root-app', revision: 3 }), legacySpan('child', 'root', 1, 2)]);
    expect(await link('unnamed')).toEqual({ appId: 'root-app', variantId: null, variantName: null, variantRevision: null });
  });

  it('goes with the span that named it when that span is deleted', async () => {
    await ingestSpans(server, 'deleted-user', [
      legacySpan('root', null, 0, 5),
      legacySpan('named', 'root', 1, 2, { variant_name: 'writer', revision: 1, user: 'ada' }),
      legacySpan('other', 'root', 3, 4, { variant_name: 'editor', revision: 2, user: 'bob' }),
    ]);
    expect(await link('deleted-user')).toMatchObject({ variantName: 'writer', variantRevision: 1 });
    expect((await server.request('DELETE', '/observability/users/ada')).status).toBe(200);
    expect(await link('deleted-user')).toMatchObject({ variantName: 'editor', variantRevision: 2 });
  });
});
