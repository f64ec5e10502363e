// The live `tracesStored` subscription (ingestion/graphql.ts): an empty list once listening, then
// the trace ids of each commit of spans, over GraphQL's SSE stream on a real port.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { legacySpan, ingestSpans } from '../../../test/helpers/spans.js';

const server = useTestServer();

const ingest = (trace: string, spans: unknown[]) => ingestSpans(server, trace, spans);

describe('tracesStored', () => {
  it('announces itself with an empty list, then the trace ids of each commit of spans', async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.baseUrl}/graphql/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { tracesStored }' }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    const nextEvent = async () => {
      for (;;) {
        const end = text.indexOf('\n\n');
        if (end >= 0) {
          const event = text.slice(0, end);
          text = text.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event);
          if (data) return JSON.parse(data[1]);
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += new TextDecoder().decode(value);
      }
    };
    try {
      expect(await nextEvent()).toEqual({ data: { tracesStored: [] } });
      await ingest('live', [legacySpan('one', null, 0, 1)]);
      expect(await nextEvent()).toEqual({ data: { tracesStored: ['live'] } });
    } finally {
      controller.abort();
    }
  });
});
