// Builders of legacy ingest bodies (POST /observability/trace, docs/observability.md) for tests.
import { expect } from 'vitest';
import type { TestServer } from './server.js';
import { requestContext } from '../../src/shared/context.js';
import { writeSpans } from '../../src/observability/ingestion/span-writer.js';
import type { SpanRecord } from '../../src/observability/ingestion/span-record.js';

/** The epoch of the test traces: 2024-05-01T12:00:00Z. */
export const T0 = Date.parse('2024-05-01T12:00:00Z');

/** ISO time `seconds` after T0. */
export function at(seconds: number): string {
  return new Date(T0 + seconds * 1000).toISOString();
}

/** A legacy span named `span <id>` running from `start` to `end` seconds after T0. */
export function legacySpan(id: string, parent: string | null, start: number, end: number, extra: Record<string, unknown> = {}) {
  return { id, name: `span ${id}`, parent_span_id: parent, start_time: at(start), end_time: at(end), ...extra };
}

/**
 * A three-level tree: `root` → `children` spans → `grandchildren` spans under each child, ids
 * `<prefix>-root`, `<prefix>-c<i>`, `<prefix>-c<i>-g<j>`. Children are listed before parents and
 * siblings in reverse start order, so nothing comes out right by accident of insertion order.
 */
export function threeLevelTree(prefix: string, children: number, grandchildren: number) {
  const width = grandchildren + 2; // seconds per child, so each child's grandchildren fit inside it
  const spans: ReturnType<typeof legacySpan>[] = [];
  for (let i = children - 1; i >= 0; i--) {
    for (let j = grandchildren - 1; j >= 0; j--) {
      const start = 1 + i * width + j + 0.5;
      spans.push(legacySpan(`${prefix}-c${i}-g${j}`, `${prefix}-c${i}`, start, start + 1, { spankind: 'llm' }));
    }
    spans.push(legacySpan(`${prefix}-c${i}`, `${prefix}-root`, 1 + i * width, (i + 1) * width, { spankind: 'tool' }));
  }
  spans.push(legacySpan(`${prefix}-root`, null, 0, 1 + children * width, { spankind: 'workflow' }));
  return spans;
}

/** Stores `spans` of trace `trace` through POST /observability/trace, which answers once they are stored. */
export async function ingestSpans(server: Pick<TestServer, 'request'>, trace: string, spans: unknown[]): Promise<void> {
  const response = await server.request('POST', '/observability/trace', { trace, spans });
  expect(response.status, response.text).toBe(200);
}

/**
 * Writes one LLM span, alone in its trace, straight into `projectId`'s store (another project's,
 * which no request of the tests' default key can reach).
 */
export async function writeSpanIn(
  server: TestServer,
  projectId: string,
  traceId: string,
  spanId: string,
  attributes: SpanRecord['attributes'] = {},
): Promise<void> {
  const record: SpanRecord = {
    traceId,
    spanId,
    parentSpanId: null,
    name: spanId,
    spanKind: 'LLM',
    statusCode: 'OK',
    startTimeUnixNano: 1n,
    endTimeUnixNano: 2n,
    attributes,
  };
  await writeSpans(requestContext(server.assay.services, projectId), [record]);
}
