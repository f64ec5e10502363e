// The scores of traces and spans through GraphQL (docs/scores.md#graphql): a page of traces reads
// the scores of all its traces in one statement, and all of its spans' in one more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacySpan } from '../../../test/helpers/spans.js';
import { startServer, type TestServer } from '../../../test/helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  for (let i = 0; i < 12; i++) {
    const trace = `scored-${i}`;
    const ingested = await server.request('POST', '/observability/trace', {
      trace,
      spans: [legacySpan('root', null, 0, 2), legacySpan('llm', 'root', 0.5, 1)],
    });
    expect(ingested.status).toBe(200);
    const scored = await server.request('POST', '/scores', [
      { trace_id: trace, name: 'helpful', value: i % 2 === 0 },
      { trace_id: trace, span_id: 'llm', name: 'accuracy', value: i / 10 },
    ]);
    expect(scored.status).toBe(200);
  }
});

afterAll(async () => {
  await server.close();
});

/** The statements run on the Score table. */
const scoreStatements = () => server.queries.filter((sql) => /["`]Score["`]/.test(sql));

describe('scores of a page of traces', () => {
  it("reads every trace's scores in one statement, and its spans' in one more", async () => {
    server.resetQueries();
    const { data, errors } = await server.graphql(`{
      traces(nameContains: "root", first: 12) {
        edges { node { traceId scores { name value } root { children { spanId scores { name value } } } } }
      }
    }`);
    expect(errors).toBeUndefined();
    expect(data.traces.edges).toHaveLength(12);
    for (const { node } of data.traces.edges) {
      const i = Number(node.traceId.split('-')[1]);
      expect(node.scores).toEqual([{ name: 'helpful', value: i % 2 === 0 ? 1 : 0 }]);
      expect(node.root.children[0].scores).toEqual([{ name: 'accuracy', value: i / 10 }]);
    }
    expect(scoreStatements()).toHaveLength(2);
  });
});
