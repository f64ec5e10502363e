// The scoring entry point: which evaluators it runs, where it reads the ground truth, and that a
// scorer always resolves to a Result. Each family's semantics are tested in ./scorers/.
import { describe, expect, it } from 'vitest';
import { listEvaluators } from './registry.js';
import { getScorer, groundTruthColumn, isTransientError } from './scoring.js';
import { context, faultOf, score, scoringCase, storedSettings } from '../../test/helpers/scorers.js';

const implemented = [
  'auto_exact_match',
  'auto_contains_json',
  'auto_similarity_match',
  'auto_regex_test',
  'field_match_test',
  'auto_json_diff',
  'auto_starts_with',
  'auto_ends_with',
  'auto_contains',
  'auto_contains_any',
  'auto_contains_all',
  'auto_levenshtein_distance',
  'auto_webhook_test',
];

/** A passing case for each implemented evaluator (no network needed but the webhook's). */
const examples: Record<string, { settings: Record<string, unknown>; output: unknown; testcase: Record<string, unknown> }> = {
  auto_exact_match: { settings: {}, output: 'a', testcase: { correct_answer: 'a' } },
  auto_contains_json: { settings: {}, output: '{"a": 1}', testcase: {} },
  auto_similarity_match: { settings: {}, output: 'a b', testcase: { correct_answer: 'a b' } },
  auto_regex_test: { settings: { regex_pattern: 'a' }, output: 'a', testcase: {} },
  field_match_test: { settings: { json_field: 'a' }, output: '{"a": "x"}', testcase: { correct_answer: 'x' } },
  auto_json_diff: { settings: {}, output: '{"a": 1}', testcase: { correct_answer: '{"a": 1}' } },
  auto_starts_with: { settings: { prefix: 'a' }, output: 'ab', testcase: {} },
  auto_ends_with: { settings: { suffix: 'b' }, output: 'ab', testcase: {} },
  auto_contains: { settings: { substring: 'a' }, output: 'ab', testcase: {} },
  auto_contains_any: { settings: { substrings: 'a, z' }, output: 'ab', testcase: {} },
  auto_contains_all: { settings: { substrings: 'a, b' }, output: 'ab', testcase: {} },
  auto_levenshtein_distance: { settings: {}, output: 'ab', testcase: { correct_answer: 'ab' } },
};

describe('getScorer', () => {
  it('runs all 18 evaluators: the 13 that need no model, and the model-judged and code ones', () => {
    const runnable = listEvaluators()
      .map((evaluator) => evaluator.key)
      .filter((key) => getScorer(key) !== undefined);
    expect(runnable.sort()).toEqual(
      [...implemented, 'auto_semantic_similarity', 'auto_ai_critique', 'auto_custom_code_run', 'rag_faithfulness', 'rag_context_relevancy'].sort(),
    );
    expect(getScorer('no_such_evaluator')).toBeUndefined();
    expect(getScorer('toString')).toBeUndefined();
  });

  it("gives results of the registry's result type", async () => {
    for (const evaluator of listEvaluators()) {
      const example = examples[evaluator.key];
      if (!example) continue;
      const scored = await score(evaluator.key, example.settings, { output: example.output, testcase: example.testcase });
      expect(scored, evaluator.key).toEqual({ type: evaluator.result_type, value: evaluator.result_type === 'bool' ? true : expect.any(Number), error: null });
    }
  });
});

describe('groundTruthColumn', () => {
  it('reads correct_answer_key without a "testcase." prefix', () => {
    expect(groundTruthColumn({ correct_answer_key: 'expected' }, 'gold')).toBe('expected');
    expect(groundTruthColumn({ correct_answer_key: 'testcase.expected' }, 'gold')).toBe('expected');
    expect(groundTruthColumn({ correct_answer_key: 'testcase.a.b' }, null)).toBe('a.b');
    expect(groundTruthColumn({ correct_answer_key: 'my testcase.x' }, null)).toBe('my testcase.x');
  });

  it("falls back to the evaluation's column, then to correct_answer", () => {
    expect(groundTruthColumn({ correct_answer_key: null }, 'gold')).toBe('gold');
    expect(groundTruthColumn({}, 'gold')).toBe('gold');
    expect(groundTruthColumn({ correct_answer_key: 'testcase.' }, 'gold')).toBe('gold');
    expect(groundTruthColumn({ correct_answer_key: '' }, null)).toBe('correct_answer');
    expect(groundTruthColumn({}, '')).toBe('correct_answer');
    expect(groundTruthColumn({}, null)).toBe('correct_answer');
  });

  it('lists at most 30 columns in the missing-column error', async () => {
    const testcase = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`c${i}`, i]));
    const message = await faultOf(score('auto_exact_match', {}, { output: 'x', testcase }));
    expect(message).toMatch(/^The test case has no column "correct_answer" \(columns: c0, c1, .*, c29, … 2 more\)$/);
  });
});

describe('scorers never throw', () => {
  it('turns an unexpected exception into an error Result with its stack', async () => {
    const scored = await score('auto_exact_match', {}, { output: 10n, testcase: { correct_answer: '10' } });
    expect(scored.type).toBe('error');
    expect(scored.value).toBeNull();
    expect(scored.error?.message).toMatch(/^The evaluator failed unexpectedly: .*BigInt/);
    expect(scored.error?.stacktrace).toMatch(/TypeError/);
    expect(isTransientError(scored)).toBe(false);
  });

  it('turns a test case that throws on reading into an error Result', async () => {
    const testcase = {};
    Object.defineProperty(testcase, 'correct_answer', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const scored = await getScorer('auto_levenshtein_distance')!(
      storedSettings('auto_levenshtein_distance'),
      scoringCase({ output: 'x', testcase }),
      context(),
    );
    expect(scored.error?.message).toBe('The evaluator failed unexpectedly: boom');
    expect(scored.error?.stacktrace).toContain('boom');
  });

  it('names a setting stored with the wrong type or missing', async () => {
    const run = (key: string, settings: Record<string, unknown>) =>
      faultOf(getScorer(key)!(settings, scoringCase({ output: 'x', testcase: { correct_answer: 'x' } }), context()));
    expect(await run('auto_similarity_match', { similarity_threshold: 'high', correct_answer_key: null })).toBe(
      'The evaluator setting "similarity_threshold" must be a number (it is "high")',
    );
    expect(await run('auto_regex_test', { regex_pattern: null, regex_should_match: true })).toBe(
      'The evaluator setting "regex_pattern" is missing; edit the evaluator configuration to set it',
    );
    expect(await run('auto_webhook_test', {})).toBe('The evaluator setting "webhook_url" is missing; edit the evaluator configuration to set it');
  });
});
