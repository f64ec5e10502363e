// Validation of the legacy ingest (POST /observability/trace, inputs.ts): every fault answered as
// a 422 in pydantic's words, and nothing stored.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../../test/helpers/server.js';
import { legacySpan } from '../../../test/helpers/spans.js';

const server = useTestServer();

const ingest = (body: unknown) => server.request('POST', '/observability/trace', body);
const storedTrace = (traceId: string) => server.assay.db.trace.findFirst({ where: { traceId } });
describe('POST /observability/trace validation (422)', () => {
  const ok = legacySpan('ok', null, 0, 1);

  async function expect422(body: unknown, detail: { loc: (string | number)[]; type: string; msg?: string }[]) {
    const response = await ingest(body);
    expect(response.status).toBe(422);
    expect(response.body.detail).toEqual(detail.map((item) => ({ msg: expect.any(String), ...item })));
  }

  it('requires the trace id and a non-empty list of spans', async () => {
    await expect422({ spans: [ok] }, [{ loc: ['body', 'trace'], type: 'missing', msg: 'Field required' }]);
    await expect422({ trace: 42, spans: [ok] }, [{ loc: ['body', 'trace'], type: 'string_type', msg: 'Input should be a valid string' }]);
    await expect422({ trace: '', spans: [ok] }, [{ loc: ['body', 'trace'], type: 'string_too_short' }]);
    await expect422({ trace: 'x'.repeat(101), spans: [ok] }, [
      { loc: ['body', 'trace'], type: 'string_too_long', msg: 'String should have at most 100 characters' },
    ]);
    await expect422({ trace: 't' }, [{ loc: ['body', 'spans'], type: 'missing' }]);
    await expect422({ trace: 't', spans: [] }, [{ loc: ['body', 'spans'], type: 'too_short', msg: 'List should have at least 1 item' }]);
    await expect422({ trace: 't', spans: { id: 'x' } }, [{ loc: ['body', 'spans'], type: 'list_type' }]);
    await expect422({ trace: 't', spans: ['x'] }, [{ loc: ['body', 'spans', 0], type: 'model_attributes_type' }]);
    // A null span is no span: a 422 at its place, like any other non-object (not a 500).
    await expect422({ trace: '0', spans: [null] }, [
      { loc: ['body', 'spans', 0], type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' },
    ]);
    await expect422({ trace: 't', spans: [ok, null, 3] }, [
      { loc: ['body', 'spans', 1], type: 'model_attributes_type' },
      { loc: ['body', 'spans', 2], type: 'model_attributes_type' },
    ]);
    await expect422([ok], [{ loc: ['body'], type: 'model_attributes_type' }]);
    await expect422(undefined, [{ loc: ['body'], type: 'missing' }]);
  });

  it('answers malformed JSON with json_invalid', async () => {
    const response = await server.request('POST', '/observability/trace', '{"trace": "t", "spans": [', {
      'content-type': 'application/json',
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ type: 'json_invalid' });
  });

  it('requires id, name, start_time and end_time of each span', async () => {
    await expect422({ trace: 't', spans: [ok, { parent_span_id: null }] }, [
      { loc: ['body', 'spans', 1, 'id'], type: 'missing' },
      { loc: ['body', 'spans', 1, 'name'], type: 'missing' },
      { loc: ['body', 'spans', 1, 'start_time'], type: 'missing', msg: 'Field required' },
      { loc: ['body', 'spans', 1, 'end_time'], type: 'missing', msg: 'Field required' },
    ]);
    await expect422({ trace: 't', spans: [{ ...ok, id: 7, name: '' }] }, [
      { loc: ['body', 'spans', 0, 'id'], type: 'string_type' },
      { loc: ['body', 'spans', 0, 'name'], type: 'string_too_short' },
    ]);
    await expect422({ trace: 't', spans: [{ ...ok, id: 's'.repeat(101), parent_span_id: 'p'.repeat(101) }] }, [
      { loc: ['body', 'spans', 0, 'id'], type: 'string_too_long' },
      { loc: ['body', 'spans', 0, 'parent_span_id'], type: 'string_too_long' },
    ]);
  });

  it('refuses unknown span kinds and statuses with enum', async () => {
    await expect422({ trace: 't', spans: [ok, ok, { ...ok, spankind: 'PROMPT', status: 'FAILED' }] }, [
      {
        loc: ['body', 'spans', 2, 'spankind'],
        type: 'enum',
        msg: "Input should be 'LLM', 'CHAIN', 'TOOL', 'RETRIEVER', 'EMBEDDING', 'AGENT', 'WORKFLOW', 'RERANKER', 'GUARDRAIL', 'EVALUATOR' or 'UNKNOWN'",
      },
      { loc: ['body', 'spans', 2, 'status'], type: 'enum', msg: "Input should be 'UNSET', 'OK' or 'ERROR'" },
    ]);
    await expect422({ trace: 't', spans: [{ ...ok, spankind: 3 }] }, [{ loc: ['body', 'spans', 0, 'spankind'], type: 'enum' }]);
  });

  it('refuses dates that are not ISO-8601 date-times', async () => {
    await expect422({ trace: 't', spans: [{ ...ok, start_time: 'yesterday', end_time: 1714564800 }] }, [
      { loc: ['body', 'spans', 0, 'start_time'], type: 'datetime_from_date_parsing' },
      { loc: ['body', 'spans', 0, 'end_time'], type: 'datetime_type', msg: 'Input should be a valid datetime' },
    ]);
    await expect422({ trace: 't', spans: [{ ...ok, start_time: '2024-02-30T00:00:00Z', end_time: '2024-05-01T25:00:00Z' }] }, [
      { loc: ['body', 'spans', 0, 'start_time'], type: 'datetime_from_date_parsing' },
      { loc: ['body', 'spans', 0, 'end_time'], type: 'datetime_from_date_parsing' },
    ]);
    await expect422({ trace: 't', spans: [{ ...ok, end_time: '2300-01-01T00:00:00Z' }] }, [{ loc: ['body', 'spans', 0, 'end_time'], type: 'value_error' }]);
  });

  it('refuses a span that ends before it starts, or is its own parent', async () => {
    await expect422({ trace: 't', spans: [ok, legacySpan('back', null, 5, 4)] }, [
      { loc: ['body', 'spans', 1, 'end_time'], type: 'value_error', msg: 'Value error, end_time must not be before start_time' },
    ]);
    await expect422({ trace: 't', spans: [legacySpan('loop', 'loop', 0, 1)] }, [{ loc: ['body', 'spans', 0, 'parent_span_id'], type: 'value_error' }]);
  });

  it('refuses negative or fractional token counts and negative or non-numeric cost', async () => {
    await expect422({ trace: 't', spans: [{ ...ok, tokens: { prompt_tokens: -1, completion_tokens: 1.5, total_tokens: 2.25 }, cost: -0.01 }] }, [
      { loc: ['body', 'spans', 0, 'tokens', 'prompt_tokens'], type: 'greater_than_equal', msg: 'Input should be greater than or equal to 0' },
      { loc: ['body', 'spans', 0, 'tokens', 'completion_tokens'], type: 'int_from_float' },
      { loc: ['body', 'spans', 0, 'tokens', 'total_tokens'], type: 'int_from_float' },
      { loc: ['body', 'spans', 0, 'cost'], type: 'greater_than_equal' },
    ]);
    await expect422({ trace: 't', spans: [{ ...ok, tokens: [1, 2], cost: 'cheap' }] }, [
      { loc: ['body', 'spans', 0, 'tokens'], type: 'model_attributes_type' },
      { loc: ['body', 'spans', 0, 'cost'], type: 'float_parsing' },
    ]);
  });

  it('refuses wrong types of the optional fields', async () => {
    await expect422(
      {
        trace: 't',
        spans: [
          {
            ...ok,
            parent_span_id: 5,
            inputs: 'text',
            outputs: [1],
            internals: 2,
            config: true,
            environment: 1,
            variant_id: {},
            variant_name: [],
            revision: 2.5,
            user: 3,
            session_id: false,
            app_id: 9,
            attributes: ['a'],
          },
        ],
      },
      [
        { loc: ['body', 'spans', 0, 'parent_span_id'], type: 'string_type' },
        { loc: ['body', 'spans', 0, 'inputs'], type: 'dict_type' },
        { loc: ['body', 'spans', 0, 'outputs'], type: 'dict_type' },
        { loc: ['body', 'spans', 0, 'internals'], type: 'dict_type' },
        { loc: ['body', 'spans', 0, 'config'], type: 'dict_type' },
        { loc: ['body', 'spans', 0, 'environment'], type: 'string_type' },
        { loc: ['body', 'spans', 0, 'variant_id'], type: 'string_type' },
        { loc: ['body', 'spans', 0, 'variant_name'], type: 'string_type' },
        { loc: ['body', 'spans', 0, 'revision'], type: 'int_from_float' },
        { loc: ['body', 'spans', 0, 'user'], type: 'string_type' },
        { loc: ['body', 'spans', 0, 'session_id'], type: 'string_type' },
        { loc: ['body', 'spans', 0, 'app_id'], type: 'string_type' },
        { loc: ['body', 'spans', 0, 'attributes'], type: 'dict_type' },
      ],
    );
  });

  it('lists every fault of every span at once, and stores nothing', async () => {
    await expect422({ trace: 'refused', spans: [ok, legacySpan('late', null, 3, 2, { name: null }), { ...ok, spankind: 'x' }] }, [
      { loc: ['body', 'spans', 1, 'name'], type: 'string_type' },
      { loc: ['body', 'spans', 1, 'end_time'], type: 'value_error' },
      { loc: ['body', 'spans', 2, 'spankind'], type: 'enum' },
    ]);
    expect(await server.assay.db.span.count({ where: { traceId: 'refused' } })).toBe(0);
    expect(await storedTrace('refused')).toBeNull();
  });
});
