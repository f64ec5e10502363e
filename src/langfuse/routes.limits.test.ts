// What Langfuse's routes answer at the service's limits (docs/langfuse.md#errors): the key's rate
// limit counts every event of an ingestion batch and is answered 429 with Retry-After in
// Langfuse's body; a body over MAX_BODY_BYTES is a 413 in the same body, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../test/helpers/server.js';

const KEY = 'langfuse-limits-key-0123456789abcdef';
const MAX_BODY = 50_000;
let server: TestServer;

const basic = { authorization: `Basic ${Buffer.from(`pk-lf-limits:${KEY}`).toString('base64')}` };
const event = (index: number) => ({
  id: `event-${index}`,
  type: 'score-create',
  timestamp: '2026-01-01T00:00:00Z',
  body: { id: `score-${index}`, traceId: 'trace-limits', name: 'accuracy', value: 1 },
});

beforeAll(async () => {
  server = await startServer({ ASSAY_AUTH: 'on', ASSAY_INIT_API_KEY: KEY, ASSAY_RATE_LIMIT_PER_MINUTE: '10', MAX_BODY_BYTES: String(MAX_BODY) });
});

afterAll(async () => {
  await server.close();
});

describe("Langfuse's routes at the limits", () => {
  it('refuses a body over MAX_BODY_BYTES with a 413 in Langfuse’s body', async () => {
    const large = { batch: [{ ...event(0), body: { ...event(0).body, comment: 'x'.repeat(MAX_BODY) } }] };
    const answer = await server.request('POST', '/api/public/ingestion', large, basic);
    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ message: expect.any(String), error: 'PayloadTooLargeError' });
  });

  it("counts each event of a batch against the key's rate limit and answers 429 with Retry-After", async () => {
    const batch = Array.from({ length: 8 }, (_, index) => event(index));
    const first = await server.request('POST', '/api/public/ingestion', { batch }, basic);
    expect(first.status).toBe(207);
    expect(first.body.successes).toHaveLength(8);
    const over = await server.request('POST', '/api/public/ingestion', { batch: batch.slice(0, 5) }, basic);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ message: expect.any(String), error: 'TooManyRequestsError' });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    const read = await server.request('GET', '/api/public/v2/scores?traceId=trace-limits', undefined, basic);
    expect([200, 429]).toContain(read.status);
    if (read.status === 429) expect(read.body.error).toBe('TooManyRequestsError');
  });
});
