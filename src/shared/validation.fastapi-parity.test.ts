// Assay's 422s against FastAPI's (docs/validation.md): every bad body below is sent to a real
// Assay and given to pydantic v2 models of the same contract bodies, run the way FastAPI runs them
// (test/helpers/fastapi_parity.py, python3 on the machine); the `loc` and `type` of every fault
// must be the same, in the same order. A body pydantic accepts must not be a 422 here either.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/helpers/server.js';

type Model = 'evaluation' | 'similarity_config' | 'regex_config' | 'webhook_config';
type Faults = [loc: (string | number)[], type: string][];

const paths: Record<Model, string> = {
  evaluation: '/evaluations',
  similarity_config: '/evaluators/configs',
  regex_config: '/evaluators/configs',
  webhook_config: '/evaluators/configs',
};

const rateLimit = { batch_size: 5, max_retries: 1, retry_delay: 0, delay_between_batches: 0 };
const evaluation = (fields: Record<string, unknown>) => ({
  app_id: 'a',
  variant_ids: ['v'],
  evaluators_configs: ['c'],
  testset_id: 't',
  rate_limit: rateLimit,
  ...fields,
});
const withRateLimit = (fields: Record<string, unknown>) => evaluation({ rate_limit: { ...rateLimit, ...fields } });
const config = (evaluator_key: string, settings_values: unknown, fields: Record<string, unknown> = {}) => ({
  app_id: 'a',
  name: 'n',
  evaluator_key,
  settings_values,
  ...fields,
});

const cases: { model: Model; body: string }[] = [
  // Malformed JSON: Python's position, whatever V8 would name.
  ...[
    'not json',
    '{"app_id": tru}',
    '{"app_id": "a",}',
    '{"app_id" "a"}',
    '[1, 2',
    '{"app_id": "a',
    '{} x',
    ' ',
    '{"a": "\\q"}',
    '{"a": 01}',
    '{"é": nul}',
  ].map((body) => ({ model: 'evaluation' as const, body })),
  // No body, null, and bodies that are not objects.
  ...['', 'null', '[]', '"x"', '5', 'true'].map((body) => ({ model: 'evaluation' as const, body })),
  // Fields of the wrong type, nested models that are not objects.
  ...[
    evaluation({ rate_limit: [] }),
    evaluation({ rate_limit: 'x' }),
    evaluation({ rate_limit: null }),
    evaluation({ variant_ids: 'v', testset_id: 7, app_id: null }),
    evaluation({ variant_ids: ['v', 5, ''], evaluators_configs: [] }),
    evaluation({ lm_providers_keys: { openai: 'sk', OPENAI_API_KEY: 5 } }),
    evaluation({ lm_providers_keys: ['sk'] }),
    evaluation({ correct_answer_column: '  ' }),
    // Lax integers: numeric strings and booleans pass, fractions and words do not.
    withRateLimit({ batch_size: '5', max_retries: ' 7 ', retry_delay: true, delay_between_batches: '5.0' }),
    withRateLimit({ batch_size: 'abc', max_retries: 5.5, retry_delay: '1e3', delay_between_batches: '' }),
    withRateLimit({ batch_size: 1e22 }),
    withRateLimit({ batch_size: -1e19, max_retries: 1e18 }),
    withRateLimit({ batch_size: 0, max_retries: 21, retry_delay: '-1', delay_between_batches: 3601 }),
    withRateLimit({ batch_size: null, max_retries: [], retry_delay: {} }),
    withRateLimit({ batch_size: '1_000', max_retries: '0x10', retry_delay: '+5' }),
    { rate_limit: { batch_size: 'x' } },
  ].map((body) => ({ model: 'evaluation' as const, body: JSON.stringify(body) })),
  // Evaluator configs: lax numbers and booleans in settings, URLs, unknown settings.
  ...(
    [
      ['similarity_config', config('auto_similarity_match', { similarity_threshold: '0.7' })],
      ['similarity_config', config('auto_similarity_match', { similarity_threshold: 'high' })],
      ['similarity_config', config('auto_similarity_match', { similarity_threshold: true })],
      ['similarity_config', config('auto_similarity_match', { similarity_threshold: 2, threshold: 1 })],
      ['similarity_config', config('auto_similarity_match', { similarity_threshold: null })],
      ['similarity_config', config('auto_similarity_match', {}, { name: ' ', app_id: '' })],
      ['similarity_config', config('auto_similarity_match', {}, { name: 'x'.repeat(256) })],
      ['regex_config', config('auto_regex_test', { regex_pattern: 'a', regex_should_match: 'yes' })],
      ['regex_config', config('auto_regex_test', { regex_pattern: 'a', regex_should_match: 'OFF' })],
      ['regex_config', config('auto_regex_test', { regex_pattern: 'a', regex_should_match: 1 })],
      ['regex_config', config('auto_regex_test', { regex_pattern: 'a', regex_should_match: 'maybe' })],
      ['regex_config', config('auto_regex_test', { regex_pattern: 'a', regex_should_match: 2 })],
      ['regex_config', config('auto_regex_test', { regex_pattern: 'a', regex_should_match: 0.5 })],
      ['regex_config', config('auto_regex_test', { regex_should_match: null })],
      ['webhook_config', config('auto_webhook_test', { webhook_url: 'ftp://example.com/score' })],
      ['webhook_config', config('auto_webhook_test', { webhook_url: 'not a url' })],
      ['webhook_config', config('auto_webhook_test', { webhook_url: 'mailto:a@b.c' })],
      ['webhook_config', config('auto_webhook_test', { webhook_url: 5 })],
      ['webhook_config', config('auto_webhook_test', {})],
      ['similarity_config', config('no_such_evaluator', {})],
    ] as const
  ).map(([model, body]) => ({ model, body: JSON.stringify(body) })),
];

const server = useTestServer();
interface Detail {
  loc: (string | number)[];
  type: string;
  msg: string;
  input?: unknown;
}

/** FastAPI's 422 details of each body, sent with its Content-Type (JSON's when none is given). */
function fastapiDetails(bodies: readonly { model: Model; body: string; content_type?: string }[]): Detail[][] {
  const script = new URL('../../test/helpers/fastapi_parity.py', import.meta.url).pathname;
  return JSON.parse(execFileSync('python3', [script], { input: JSON.stringify(bodies) }).toString()) as Detail[][];
}

function fastapi(): Faults[] {
  return fastapiDetails(cases.map((testCase) => ({ ...testCase, content_type: 'application/json' }))).map((details) =>
    details.map(({ loc, type }): Faults[number] => [loc, type]),
  );
}

async function assay({ model, body }: (typeof cases)[number]): Promise<Faults> {
  const response = await server.request('POST', paths[model], body, { 'content-type': 'application/json' });
  if (response.status !== 422) return [];
  return (response.body.detail as { loc: (string | number)[]; type: string }[]).map(({ loc, type }) => [loc, type]);
}

describe('422 parity with FastAPI + pydantic v2', () => {
  it('faults every bad body at the same loc with the same type, and accepts what pydantic accepts', async () => {
    const expected = fastapi();
    const differences: string[] = [];
    for (const [index, testCase] of cases.entries()) {
      const got = await assay(testCase);
      if (JSON.stringify(got) !== JSON.stringify(expected[index])) {
        differences.push(`${testCase.model} ${testCase.body}\n  assay   ${JSON.stringify(got)}\n  fastapi ${JSON.stringify(expected[index])}`);
      }
    }
    expect(differences.join('\n')).toBe('');
    // Both sides found faults in most cases: the comparison was not of empty lists.
    expect(expected.filter((faults) => faults.length > 0).length).toBeGreaterThan(cases.length - 10);
  });

  it('answers a body of another Content-Type than JSON as FastAPI does: its text is no model', async () => {
    const valid = JSON.stringify(evaluation({}));
    const bodies = [
      { model: 'evaluation', body: 'hello', content_type: 'text/plain' },
      { model: 'evaluation', body: valid, content_type: 'text/plain; charset=utf-8' },
      { model: 'evaluation', body: '<a/>', content_type: 'application/xml' },
      { model: 'evaluation', body: 'app_id=a', content_type: 'application/x-www-form-urlencoded' },
      { model: 'evaluation', body: '{"app_id": ', content_type: 'application/vnd.assay+json' },
    ] as const;
    const expected = fastapiDetails(bodies);
    for (const [index, { body, content_type }] of bodies.entries()) {
      const response = await server.request('POST', paths.evaluation, body, { 'content-type': content_type });
      expect(response.status, content_type).toBe(422);
      const details = response.body.detail as Detail[];
      // Assay shows `input` only where a client could not tell it otherwise: the text that was no JSON.
      const compared = expected[index].map((detail) =>
        detail.type === 'model_attributes_type' ? detail : { loc: detail.loc, type: detail.type, msg: detail.msg },
      );
      expect(details, content_type).toEqual(compared);
    }
    expect(expected[0]).toEqual([
      { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: 'hello' },
    ]);
  });
});
