// Test cases from production (POST /testsets/{id}/rows/from-spans and GraphQL): traces, spans or a
// filter's matches mapped by JSONPath into rows that keep their source; a preview writes nothing;
// the filter is capped and its count told; bad input is a 422 naming the field; other projects'
// traces and spans are 404 as unknown ones are.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';
import { createTestset } from '../../test/helpers/evaluations.js';
import { legacySpan, writeSpanIn } from '../../test/helpers/spans.js';
import { globalId } from '../shared/graphql/ids.js';

const server = useTestServer({ OTLP_GRPC_PORT: '0' });

const mapping = { question: '$.input.question', correct_answer: '$.output.answer', first_tag: "$.input['tags'][0]", latency: '$.metadata.latency' };

// Five traces p0…p4, one a minute; each root has a question, an answer and tags, and one child.
beforeAll(async () => {
  for (let i = 0; i < 5; i++) {
    const response = await server.request('POST', '/observability/trace', {
      trace: `p${i}`,
      spans: [
        legacySpan(`p${i}-root`, null, i * 60, i * 60 + 2, {
          name: i % 2 === 0 ? 'support answer' : 'summarise',
          spankind: 'workflow',
          inputs: { question: `question ${i}`, tags: [`tag-${i}`, 'other'] },
          outputs: { answer: `answer ${i}` },
        }),
        legacySpan(`p${i}-llm`, `p${i}-root`, i * 60, i * 60 + 1, {
          name: 'chat',
          spankind: 'llm',
          inputs: { prompt: `prompt ${i}` },
          outputs: { text: `text ${i}` },
        }),
      ],
    });
    expect(response.status).toBe(200);
  }
  const project = await server.assay.db.project.findFirstOrThrow();
  await writeSpanIn(server, project.id, 'with-attributes', 'attr-root', { 'app.case': { expected: 'yes' }, 'gen_ai.request.model': 'gpt-4o' });
  const other = await server.assay.db.project.create({ data: { name: 'other-project' } });
  await writeSpanIn(server, other.id, 'elsewhere', 'foreign-span');
});

async function newTestset(): Promise<string> {
  return (await createTestset(server, [{ question: 'typed in', correct_answer: 'by hand' }])).id;
}

const fromSpans = (testsetId: string, body: unknown) => server.request('POST', `/testsets/${testsetId}/rows/from-spans`, body);

describe('POST /testsets/{id}/rows/from-spans', () => {
  it('previews the mapped rows of traces (their root spans) without writing anything', async () => {
    const id = await newTestset();
    const response = await fromSpans(id, { trace_ids: ['p1', 'p3'], mapping, preview: true });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      matched: 2,
      capped: false,
      revision: null,
      rows: [
        {
          id: null,
          position: null,
          data: { question: 'question 1', correct_answer: 'answer 1', first_tag: 'tag-1', latency: 2 },
          source_trace_id: 'p1',
          source_span_id: 'p1-root',
        },
        {
          id: null,
          position: null,
          data: { question: 'question 3', correct_answer: 'answer 3', first_tag: 'tag-3', latency: 2 },
          source_trace_id: 'p3',
          source_span_id: 'p3-root',
        },
      ],
    });
    const revisions = await server.request('GET', `/testsets/${id}/revisions`);
    expect(revisions.body.map((revision: any) => revision.number)).toEqual([1]);
    expect((await server.request('GET', `/testsets/${id}`)).body.csvdata).toEqual([{ question: 'typed in', correct_answer: 'by hand' }]);
  });

  it('writes the rows of chosen spans as a new revision, each keeping its source', async () => {
    const id = await newTestset();
    const response = await fromSpans(id, {
      spans: [
        { trace_id: 'p2', span_id: 'p2-llm' },
        { trace_id: 'with-attributes', span_id: 'attr-root' },
      ],
      mapping: {
        question: '$.input.prompt',
        correct_answer: '$.output.text',
        expected: "$.attributes['app.case'].expected",
        model: '$.attributes["gen_ai.request.model"]',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.revision).toBe(2);
    expect(response.body.rows).toEqual([
      { id: expect.any(String), position: 1, data: { question: 'prompt 2', correct_answer: 'text 2' }, source_trace_id: 'p2', source_span_id: 'p2-llm' },
      {
        id: expect.any(String),
        position: 2,
        data: { expected: 'yes', model: 'gpt-4o' },
        source_trace_id: 'with-attributes',
        source_span_id: 'attr-root',
      },
    ]);
    const revision = await server.request('GET', `/testsets/${id}/revisions/2`);
    expect(revision.body).toMatchObject({ number: 2, change: 'rows_from_spans', row_count: 3, columns: ['question', 'correct_answer', 'expected', 'model'] });
    expect(revision.body.rows.map((row: any) => [row.id, row.source_trace_id, row.source_span_id])).toEqual([
      [expect.any(String), null, null],
      [response.body.rows[0].id, 'p2', 'p2-llm'],
      [response.body.rows[1].id, 'with-attributes', 'attr-root'],
    ]);
    expect((await server.request('GET', `/testsets/${id}`)).body.csvdata).toHaveLength(3);
  });

  it("takes a filter's newest matches up to the limit and tells how many matched", async () => {
    const id = await newTestset();
    const response = await fromSpans(id, {
      filter: { name_contains: 'support', spankind: ['WORKFLOW'] },
      limit: 2,
      mapping: { question: '$.input.question' },
      preview: true,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ matched: 3, capped: true, revision: null });
    expect(response.body.rows.map((row: any) => row.source_trace_id)).toEqual(['p4', 'p2']);
    const all = await fromSpans(id, { filter: { name_contains: 'support', min_latency: 1 }, mapping: { question: '$.input.question' } });
    expect(all.body).toMatchObject({ matched: 3, capped: false, revision: 2 });
    expect(all.body.rows.map((row: any) => row.data.question)).toEqual(['question 4', 'question 2', 'question 0']);
  });

  it('answers 422 naming the field: a bad JSONPath, a path outside the span, no or two selections, a bad filter, an over-limit', async () => {
    const id = await newTestset();
    const cases: [unknown, (string | number)[], string][] = [
      [{ trace_ids: ['p1'], mapping: { q: 'input.question' } }, ['body', 'mapping', 'q'], 'A JSONPath starts with $'],
      [
        { trace_ids: ['p1'], mapping: { q: '$.input[?(@.x)]' } },
        ['body', 'mapping', 'q'],
        'Unsupported JSONPath at "[?(@.x)]": use .name, [\'name\'] or [index]',
      ],
      [{ trace_ids: ['p1'], mapping: { q: '$.config.model' } }, ['body', 'mapping', 'q'], 'A JSONPath starts with $.input, $.output, $.metadata, $.attributes'],
      [{ mapping: { q: '$.input' } }, ['body', 'trace_ids'], 'Give exactly one of trace_ids, spans, filter'],
      [{ trace_ids: ['p1'], filter: {}, mapping: { q: '$.input' } }, ['body', 'filter'], 'Give exactly one of trace_ids, spans, filter'],
      [
        { filter: { min_cost: 'cheap' }, mapping: { q: '$.input' } },
        ['body', 'filter', 'min_cost'],
        'Input should be a valid number, unable to parse string as a number',
      ],
      [{ filter: {}, limit: 1001, mapping: { q: '$.input' } }, ['body', 'limit'], 'Input should be less than or equal to 1000'],
      [{ trace_ids: ['p1'], mapping: {} }, ['body', 'mapping'], 'Map at least one column'],
    ];
    for (const [body, loc, msg] of cases) {
      const response = await fromSpans(id, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.detail, JSON.stringify(body)).toContainEqual(expect.objectContaining({ loc, msg }));
    }
  });

  it("answers 404 for another project's trace, span or test set as for unknown ones, and writes nothing", async () => {
    const id = await newTestset();
    expect((await fromSpans(id, { trace_ids: ['p1', 'elsewhere'], mapping })).body).toEqual({ detail: 'Trace with id elsewhere not found' });
    expect((await fromSpans(id, { trace_ids: ['nowhere'], mapping })).body).toEqual({ detail: 'Trace with id nowhere not found' });
    const span = await fromSpans(id, { spans: [{ trace_id: 'elsewhere', span_id: 'foreign-span' }], mapping });
    expect(span.status).toBe(404);
    expect(span.body).toEqual({ detail: 'Span with id foreign-span not found' });
    const project = await server.assay.db.project.findFirstOrThrow({ where: { name: 'other-project' } });
    const foreign = await server.assay.db.testset.create({ data: { projectId: project.id, name: 'foreign', columns: [] } });
    expect((await fromSpans(foreign.id, { trace_ids: ['p1'], mapping })).body).toEqual({ detail: `Testset with id ${foreign.id} not found` });
    expect((await server.request('GET', `/testsets/${id}/revisions`)).body).toHaveLength(1);
  });
});

describe('GraphQL addTestsetRowsFromSpans', () => {
  it('previews, then writes, with the revision and the rows linked to their sources', async () => {
    const id = await newTestset();
    const mutation = `mutation($id: ID!, $input: TestsetRowsFromSpansInput!) {
      addTestsetRowsFromSpans(id: $id, input: $input) { matched capped revision { number change rowCount } rows { rowId position data sourceTraceId sourceSpanId } }
    }`;
    const input = { traceIds: ['p0'], mapping: { question: '$.input.question', correct_answer: '$.output.answer' } };
    const preview = await server.graphql(mutation, { id: globalId('Testset', id), input: { ...input, preview: true } });
    expect(preview.errors).toBeUndefined();
    expect(preview.data.addTestsetRowsFromSpans).toEqual({
      matched: 1,
      capped: false,
      revision: null,
      rows: [{ rowId: null, position: null, data: { question: 'question 0', correct_answer: 'answer 0' }, sourceTraceId: 'p0', sourceSpanId: 'p0-root' }],
    });
    const written = await server.graphql(mutation, { id: globalId('Testset', id), input: { ...input, spans: undefined } });
    expect(written.data.addTestsetRowsFromSpans.revision).toEqual({ number: 2, change: 'ROWS_FROM_SPANS', rowCount: 2 });
    const rowId = written.data.addTestsetRowsFromSpans.rows[0].rowId;
    const read = await server.graphql(`query($id: ID!) { node(id: $id) { ... on TestsetRow { position sourceTraceId sourceSpanId data } } }`, { id: rowId });
    expect(read.data.node).toEqual({ position: 1, sourceTraceId: 'p0', sourceSpanId: 'p0-root', data: { question: 'question 0', correct_answer: 'answer 0' } });

    const invalid = await server.graphql(mutation, {
      id: globalId('Testset', id),
      input: { spans: [{ traceId: 'p0', spanId: 'p0-root' }], filter: {}, mapping: { q: 'nope' } },
    });
    expect(invalid.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(invalid.errors[0].extensions)).toContain('mapping');
  });
});
