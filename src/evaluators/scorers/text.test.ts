// The text evaluators, run as the runner runs them (settings completed as stored).
import { describe, expect, it } from 'vitest';
import { getScorer } from '../scoring.js';
import { containsJsonObject, jaccard, splitSubstrings, wordSet } from './text.js';
import { context, faultOf, score, scoringCase, valueOf } from '../../../test/helpers/scorers.js';

const bool = (key: string, settings: Record<string, unknown>, output: unknown, testcase: Record<string, unknown> = {}) =>
  valueOf('bool', score(key, settings, { output, testcase }));

const nfc = 'caf\u00e9';
const nfd = 'cafe\u0301';

describe('auto_exact_match', () => {
  const exact = (output: unknown, truth: unknown) => bool('auto_exact_match', {}, output, { correct_answer: truth });

  it('compares the output with the ground truth exactly', async () => {
    expect(await exact('Paris', 'Paris')).toBe(true);
    expect(await exact('Paris', 'paris')).toBe(false);
    expect(await exact('Paris\n', 'Paris')).toBe(false);
    expect(await exact('', '')).toBe(true);
    expect(await exact('', 'a')).toBe(false);
  });

  it('compares numbers and booleans by their text', async () => {
    expect(await exact('42', 42)).toBe(true);
    expect(await exact(42, '42')).toBe(true);
    expect(await exact('42', 43)).toBe(false);
    expect(await exact('42.0', 42)).toBe(false);
    expect(await exact(true, 'true')).toBe(true);
  });

  it('compares a JSON output by its JSON text', async () => {
    expect(await exact({ a: 1 }, '{"a":1}')).toBe(true);
    expect(await exact({ a: 1 }, '{"a": 1}')).toBe(false);
  });

  it('treats canonically equivalent Unicode as equal, and emoji and CJK as themselves', async () => {
    expect(await exact(nfd, nfc)).toBe(true);
    expect(await exact('👍🏽 好', '👍🏽 好')).toBe(true);
    expect(await exact('👍🏽', '👍')).toBe(false);
  });

  it('reads a null cell as empty text', async () => {
    expect(await exact('', null)).toBe(true);
  });

  it('reads the column named by correct_answer_key, without a "testcase." prefix', async () => {
    const testcase = { expected: 'yes', correct_answer: 'no' };
    expect(await bool('auto_exact_match', { correct_answer_key: 'testcase.expected' }, 'yes', testcase)).toBe(true);
    expect(await bool('auto_exact_match', { correct_answer_key: 'expected' }, 'yes', testcase)).toBe(true);
    expect(await bool('auto_exact_match', {}, 'yes', testcase)).toBe(false);
  });

  it("falls back to the evaluation's correct_answer_column, which the setting overrides", async () => {
    const testcase = { gold: 'a', other: 'b', correct_answer: 'c' };
    const run = (settings: Record<string, unknown>, output: string) =>
      valueOf('bool', score('auto_exact_match', settings, { output, testcase, correctAnswerColumn: 'gold' }));
    expect(await run({}, 'a')).toBe(true);
    expect(await run({}, 'c')).toBe(false);
    expect(await run({ correct_answer_key: 'other' }, 'b')).toBe(true);
  });

  it('gives an error naming a missing column and the columns there are', async () => {
    const message = await faultOf(score('auto_exact_match', {}, { output: 'x', testcase: { question: 'q', answer: 'a' } }));
    expect(message).toBe('The test case has no column "correct_answer" (columns: question, answer)');
    expect(await faultOf(score('auto_exact_match', { correct_answer_key: 'testcase.gold' }, { output: 'x', testcase: {} }))).toBe(
      'The test case has no column "gold" (columns: none)',
    );
  });
});

describe('auto_contains_json', () => {
  const containsJson = (output: unknown) => bool('auto_contains_json', {}, output);

  it('finds a JSON object in the output', async () => {
    expect(await containsJson('{"a": 1}')).toBe(true);
    expect(await containsJson('{}')).toBe(true);
    expect(await containsJson('Here it is: {"a": {"b": [1, 2]}} — done')).toBe(true);
    expect(await containsJson('```json\n{"name": "Zoë"}\n```')).toBe(true);
    expect(await containsJson('[{"a": 1}]')).toBe(true);
  });

  it('does not count text without a parsable object', async () => {
    expect(await containsJson('')).toBe(false);
    expect(await containsJson('no json here')).toBe(false);
    expect(await containsJson('{not json}')).toBe(false);
    expect(await containsJson('{"a": 1')).toBe(false);
    expect(await containsJson('[1, 2]')).toBe(false);
    expect(await containsJson('"just a string"')).toBe(false);
  });

  it('ignores braces inside JSON strings and goes on after a span that does not parse', async () => {
    expect(await containsJson('{"a": "}"}')).toBe(true);
    expect(await containsJson('{not json {"a": 1}}')).toBe(true);
    expect(await containsJson('{{"a": 1}')).toBe(true);
    expect(await containsJson('} {"a": 1')).toBe(false);
  });

  it('counts an output that is a JSON object, not other JSON values', async () => {
    expect(await containsJson({ x: 1 })).toBe(true);
    expect(await containsJson([1, 2])).toBe(false);
    expect(await containsJson(5)).toBe(false);
    expect(await containsJson(null)).toBe(false);
  });

  it('stops searching past its budget', () => {
    expect(containsJsonObject('{"a": 1}')).toBe(true);
    expect(containsJsonObject('{"a": 1}', 3)).toBe(false);
  });
});

describe('auto_similarity_match', () => {
  const similar = (output: unknown, truth: unknown, similarity_threshold?: number) =>
    bool('auto_similarity_match', similarity_threshold === undefined ? {} : { similarity_threshold }, output, { correct_answer: truth });

  it('ignores case and punctuation', async () => {
    expect(await similar('The cat sat.', 'the CAT sat!')).toBe(true);
    expect(await similar('The cat sat', 'A dog ran')).toBe(false);
  });

  it('passes strictly above the threshold (default 0.5)', async () => {
    // {a,b,c} vs {a,b,d}: 2 common of 4 = 0.5.
    expect(await similar('a b c', 'a b d')).toBe(false);
    expect(await similar('a b c', 'a b d', 0.49)).toBe(true);
    expect(await similar('a b c', 'a b d', 0.5)).toBe(false);
    // {a,b} vs {a,c}: 1/3.
    expect(await similar('a b', 'a c', 1 / 3)).toBe(false);
    expect(await similar('a b', 'a c', 0.33)).toBe(true);
    expect(await similar('x y', 'z w', 0)).toBe(false);
    expect(await similar('x y', 'x w', 0)).toBe(true);
    expect(await similar('same words', 'same words', 1)).toBe(false);
    expect(await similar('same words', 'same words', 0.99)).toBe(true);
  });

  it('counts each word once', () => {
    expect(jaccard(wordSet('go go go stop'), wordSet('go stop'))).toBe(1);
  });

  it('handles accents, emoji and CJK', async () => {
    expect(await similar('Café crème brûlée', 'CAFÉ CRÈME BRÛLÉE')).toBe(true);
    expect(await similar(nfd, nfc)).toBe(true);
    expect(await similar('👍', '👎')).toBe(false);
    expect(await similar('great 👍', 'great 👍')).toBe(true);
    // Chinese has no spaces: still several words, so a shared start is a partial match.
    expect(wordSet('我喜欢吃苹果').size).toBeGreaterThan(1);
    expect(await similar('我喜欢吃苹果', '我喜欢吃苹果')).toBe(true);
    expect(await similar('我喜欢吃苹果', '他们明天去北京')).toBe(false);
    const partial = jaccard(wordSet('我喜欢吃苹果'), wordSet('我喜欢吃香蕉'));
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(1);
  });

  it('treats two texts without words as alike, one empty text as unlike', async () => {
    expect(await similar('', '')).toBe(true);
    expect(await similar('', 'word')).toBe(false);
    expect(await similar('word', '')).toBe(false);
  });

  it('compares a number ground truth with its text', async () => {
    expect(await similar('42', 42)).toBe(true);
  });

  it('gives an error for a missing column', async () => {
    expect(await faultOf(score('auto_similarity_match', {}, { output: 'x', testcase: { a: 1 } }))).toBe(
      'The test case has no column "correct_answer" (columns: a)',
    );
  });
});

describe('auto_regex_test', () => {
  const regex = (regex_pattern: string, output: unknown, regex_should_match?: boolean) =>
    bool('auto_regex_test', regex_should_match === undefined ? { regex_pattern } : { regex_pattern, regex_should_match }, output);

  it('searches case-insensitively and compares with regex_should_match', async () => {
    expect(await regex('^order #\\d+', 'Order #12 shipped')).toBe(true);
    expect(await regex('shipped', 'Order #12 SHIPPED')).toBe(true);
    expect(await regex('^shipped', 'Order #12 shipped')).toBe(false);
    expect(await regex('^order #\\d+', 'Order #12', false)).toBe(false);
    expect(await regex('refund', 'Order #12', false)).toBe(true);
  });

  it('works on Unicode code points and folds case beyond ASCII', async () => {
    expect(await regex('^.$', '😀')).toBe(true);
    expect(await regex('^\\p{Han}+$', '你好')).toBe(true);
    expect(await regex('^é', 'ÉCOLE')).toBe(true);
    expect(await regex('a\\-b', 'A-B')).toBe(true);
  });

  it("accepts Python's named groups, inline flags and \\A, as RE2 does", async () => {
    expect(await regex('^(?P<year>\\d{4})-(?P<month>\\d{2})$', '2024-05')).toBe(true);
    expect(await regex('(?i)yes', 'YES')).toBe(true);
    expect(await regex('\\Aorder\\z', 'Order')).toBe(true);
  });

  it('matches in linear time: a catastrophic backtracking pattern answers at once', async () => {
    const started = performance.now();
    expect(await regex('^(a+)+$', 'a'.repeat(26) + '!')).toBe(false);
    expect(await regex('^(a|a)*$', 'a'.repeat(100_000) + '!')).toBe(false);
    expect(await regex('^(a+)+$', 'a'.repeat(26))).toBe(true);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('matches the text of an empty or JSON output', async () => {
    expect(await regex('^$', '')).toBe(true);
    expect(await regex('"a":1', { a: 1 })).toBe(true);
  });

  it('gives an error for a pattern that does not compile, or uses lookaround or backreferences', async () => {
    // The settings schema refuses them; a config stored under an older check could still hold one.
    const scorer = getScorer('auto_regex_test')!;
    const faultFor = (regex_pattern: string) => faultOf(scorer({ regex_pattern, regex_should_match: true }, scoringCase({ output: 'x' }), context()));
    expect(await faultFor('(')).toBe('Invalid regular expression: missing closing ): "("');
    expect(await faultFor('^(?!.*error)')).toBe(
      'Invalid regular expression: lookahead and lookbehind ("(?!…)") are not supported: patterns run on RE2, in time linear in the text (docs/evaluators.md)',
    );
    expect(await faultFor('(?<=\\$)\\d+')).toMatch(/^Invalid regular expression: lookahead and lookbehind \("\(\?<=…\)"\) are not supported/);
    expect(await faultFor('(a)\\1')).toMatch(/^Invalid regular expression: backreferences \("\\1"\) are not supported/);
    expect(await faultFor('(?P<a>x)(?P=a)')).toMatch(/^Invalid regular expression: backreferences \("\(\?P=…\)"\) are not supported/);
    expect(await faultFor('end\\Z')).toBe('Invalid regular expression: invalid escape sequence "\\Z": write "\\z" for the end of the text');
  });
});

describe('auto_starts_with, auto_ends_with, auto_contains', () => {
  it('tests the prefix, case-sensitively by default', async () => {
    expect(await bool('auto_starts_with', { prefix: 'Hello' }, 'Hello world')).toBe(true);
    expect(await bool('auto_starts_with', { prefix: 'hello' }, 'Hello world')).toBe(false);
    expect(await bool('auto_starts_with', { prefix: 'hello', case_sensitive: false }, 'Hello world')).toBe(true);
    expect(await bool('auto_starts_with', { prefix: 'world' }, 'Hello world')).toBe(false);
    expect(await bool('auto_starts_with', { prefix: 'H' }, '')).toBe(false);
    expect(await bool('auto_starts_with', { prefix: '4' }, 42)).toBe(true);
  });

  it('tests the suffix', async () => {
    expect(await bool('auto_ends_with', { suffix: 'world' }, 'Hello world')).toBe(true);
    expect(await bool('auto_ends_with', { suffix: 'WORLD' }, 'Hello world')).toBe(false);
    expect(await bool('auto_ends_with', { suffix: 'WORLD', case_sensitive: false }, 'Hello world')).toBe(true);
    expect(await bool('auto_ends_with', { suffix: '🎉' }, 'Done 🎉')).toBe(true);
    expect(await bool('auto_ends_with', { suffix: 'Hello' }, 'Hello world')).toBe(false);
  });

  it('tests the substring, with Unicode case folding and normalisation', async () => {
    expect(await bool('auto_contains', { substring: 'école' }, 'Une école')).toBe(true);
    expect(await bool('auto_contains', { substring: 'ÉCOLE' }, 'Une école')).toBe(false);
    expect(await bool('auto_contains', { substring: 'ÉCOLE', case_sensitive: false }, 'Une école')).toBe(true);
    expect(await bool('auto_contains', { substring: nfc }, `un ${nfd} noir`)).toBe(true);
    expect(await bool('auto_contains', { substring: '北京' }, '我们去北京')).toBe(true);
    expect(await bool('auto_contains', { substring: 'x' }, '')).toBe(false);
  });
});

describe('auto_contains_any, auto_contains_all', () => {
  it('splits substrings on commas, trimmed, empty ones dropped', () => {
    expect(splitSubstrings(' refund , invoice,, ,late ')).toEqual(['refund', 'invoice', 'late']);
    expect(splitSubstrings(' , ')).toEqual([]);
  });

  it('passes when any substring is found', async () => {
    expect(await bool('auto_contains_any', { substrings: 'refund, invoice' }, 'Your invoice is attached')).toBe(true);
    expect(await bool('auto_contains_any', { substrings: 'refund, invoice' }, 'Hello')).toBe(false);
    expect(await bool('auto_contains_any', { substrings: 'REFUND, INVOICE' }, 'your invoice')).toBe(false);
    expect(await bool('auto_contains_any', { substrings: 'REFUND, INVOICE', case_sensitive: false }, 'your invoice')).toBe(true);
  });

  it('passes when all substrings are found', async () => {
    expect(await bool('auto_contains_all', { substrings: 'refund, invoice,' }, 'refund and invoice')).toBe(true);
    expect(await bool('auto_contains_all', { substrings: 'refund, invoice' }, 'refund only')).toBe(false);
    expect(await bool('auto_contains_all', { substrings: 'Refund, Invoice', case_sensitive: false }, 'REFUND INVOICE')).toBe(true);
    expect(await bool('auto_contains_all', { substrings: 'Refund, Invoice' }, 'REFUND INVOICE')).toBe(false);
  });

  it('gives an error when no substring is left', async () => {
    for (const key of ['auto_contains_any', 'auto_contains_all']) {
      expect(await faultOf(score(key, { substrings: ' , ,' }, { output: 'x' }))).toBe(
        'The evaluator setting "substrings" lists no substring (it is " , ,"); give substrings separated by commas',
      );
    }
  });
});
