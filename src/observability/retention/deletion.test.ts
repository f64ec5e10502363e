// Deleting a trace and a user's spans (docs/observability.md#deleting), over REST and GraphQL, on
// the run's database: what goes, what stays (another user's spans, another project's), and the
// summaries of the traces that keep spans, summed again.
import { describe, expect, it } from 'vitest';
import { legacySpan, ingestSpans } from '../../../test/helpers/spans.js';
import { useTestServer } from '../../../test/helpers/server.js';
import { requestContext } from '../../shared/context.js';
import { writeSpans } from '../ingestion/span-writer.js';

const server = useTestServer();

const ingest = (trace: string, spans: unknown[]) => ingestSpans(server, trace, spans);

/** The trace's summary (GraphQL `trace`), or undefined when there is none. */
async function summary(traceId: string) {
  const answer = await server.graphql('query($t: String!) { trace(traceId: $t) { spanCount userId cost } }', { t: traceId });
  return (answer.data.trace ?? undefined) as { spanCount: number; userId: string | null; cost: number | null } | undefined;
}

describe('deleting', () => {
  it('deletes a trace whole (REST and GraphQL); an unknown or already deleted trace is a 404', async () => {
    await ingest('gone-rest', [legacySpan('r', null, 0, 2), legacySpan('c', 'r', 0.5, 1)]);
    await ingest('gone-gql', [legacySpan('r', null, 0, 2)]);
    expect((await server.request('DELETE', '/observability/traces/gone-rest')).status).toBe(204);
    expect((await server.request('GET', '/observability/traces/gone-rest')).status).toBe(404);
    expect(await summary('gone-rest')).toBeUndefined();
    expect((await server.request('DELETE', '/observability/traces/gone-rest')).body).toEqual({ detail: 'Trace with id gone-rest not found' });

    const deleted = await server.graphql('mutation { deleteTrace(traceId: "gone-gql") { spans traces } }');
    expect(deleted.data.deleteTrace).toEqual({ spans: 1, traces: 1 });
    const again = await server.graphql('mutation { deleteTrace(traceId: "gone-gql") { spans } }');
    expect(again.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it("deletes every span of a user: their own traces go, shared ones keep the others' spans, summed again; other projects are untouched", async () => {
    await ingest('ada-only', [legacySpan('r', null, 0, 2, { user: 'ada', cost: 0.5 }), legacySpan('c', 'r', 0.5, 1, { user: 'ada', cost: 0.25 })]);
    await ingest('shared', [
      legacySpan('r', null, 0, 3, { user: 'ada', cost: 1 }),
      legacySpan('b', 'r', 0.5, 1, { user: 'bob', cost: 0.1 }),
      legacySpan('b2', 'r', 1, 2, { user: 'bob', cost: 0.2 }),
    ]);
    await ingest('bob-only', [legacySpan('r', null, 0, 1, { user: 'bob' })]);
    const other = (await server.request('POST', '/projects', { name: 'other-project' })).body.id as string;
    const now = BigInt(Date.now()) * 1_000_000n;
    await writeSpans(requestContext(server.assay.services, other), [
      {
        traceId: 'theirs',
        spanId: 'r',
        parentSpanId: null,
        name: 'theirs',
        spanKind: 'CHAIN',
        statusCode: 'OK',
        startTimeUnixNano: now,
        endTimeUnixNano: now + 1n,
        userId: 'ada',
        attributes: {},
      },
    ]);
    expect((await summary('shared'))?.spanCount).toBe(3);

    const deleted = await server.request('DELETE', '/observability/users/ada');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ spans: 3, traces: 1 });
    expect(await summary('ada-only')).toBeUndefined();
    // The shared trace keeps bob's two spans, its root now the earliest of them, its sums theirs.
    expect(await summary('shared')).toMatchObject({ spanCount: 2, userId: 'bob', cost: 0.3 });
    expect((await summary('bob-only'))?.spanCount).toBe(1);
    const spans = await server.request('GET', '/observability/spans?user_id=ada');
    expect(spans.body.spans).toEqual([]);
    expect(await server.assay.db.span.count({ where: { projectId: other, userId: 'ada' } })).toBe(1);

    // Nothing left of ada: as unknown as any id.
    expect((await server.request('DELETE', '/observability/users/ada')).body).toEqual({ detail: 'User with id ada not found' });
    const viaGraphql = await server.graphql('mutation { deleteUserSpans(userId: "bob") { spans traces } }');
    expect(viaGraphql.data.deleteUserSpans).toEqual({ spans: 3, traces: 2 });
    const none = await server.graphql('mutation { deleteUserSpans(userId: "bob") { spans } }');
    expect(none.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
