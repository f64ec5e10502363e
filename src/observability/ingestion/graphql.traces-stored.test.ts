// The live `tracesStored` subscription (ingestion/graphql.ts): an empty list once listening, then
// the trace ids of each commit of spans, over GraphQL's SSE stream on a real port.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { legacySpan, ingestSpans } from '../../../test/helpers/spans.js';
import { subscribe } from '../../../test/helpers/sse.js';

const server = useTestServer();

const ingest = (trace: string, spans: unknown[]) => ingestSpans(server, trace, spans);

describe('tracesStored', () => {
  it('announces itself with an empty list, then the trace ids of each commit of spans', async () => {
    const stream = await subscribe(server.baseUrl, 'subscription { tracesStored }');
    try {
      expect(await stream.next()).toEqual({ data: { tracesStored: [] } });
      await ingest('live', [legacySpan('one', null, 0, 1)]);
      expect(await stream.next()).toEqual({ data: { tracesStored: ['live'] } });
    } finally {
      stream.close();
    }
  });
});
