// The AI critique's pieces: the template rule (placeholders, escapes, faults), the score read
// from a judge's reply, and the scorer against a local OpenAI-compatible server.
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinPriceList } from '../../pricing/prices.js';
import { type FakeEndpoint, startFakeOpenAI } from '../../../test/helpers/endpoints.js';
import { providerClient } from '../../providers/client.js';
import { TemplateSyntaxError, columnPlaceholders, parseTemplate, renderTemplate } from '../template.js';
import { judgeMessages, parseJudgeScore } from './critique.js';
import { faultOf, score, scoringCase, storedSettings, valueOf } from '../../../test/helpers/scorers.js';

describe('prompt templates', () => {
  it('reads {name} placeholders, {{ and }} as literal braces', () => {
    expect(parseTemplate('Rate {prediction} vs {ground_truth}; reply {{"score": n}} for {user question}')).toEqual([
      { text: 'Rate ' },
      { placeholder: 'prediction' },
      { text: ' vs ' },
      { placeholder: 'ground_truth' },
      { text: '; reply {"score": n} for ' },
      { placeholder: 'user question' },
    ]);
    expect(columnPlaceholders('{prediction} {country} {inputs} {country} {correct_answer} {région_1.x}')).toEqual(['country', 'région_1.x']);
    expect(renderTemplate('{a}-{{b}}-{c}', (name) => name.toUpperCase())).toBe('A-{b}-C');
  });

  it.each([
    ['Reply {"score": 8}', 'Invalid placeholder {"score": 8}'],
    ['Empty {} braces', 'Invalid placeholder {}'],
    ['Spaced { x }', 'Invalid placeholder { x }'],
    ['Scale {0-10}', 'Invalid placeholder {0-10}'],
    ['Unclosed {prediction', 'Unclosed "{" at character 9'],
    ['Nested {a{b}}', 'Unclosed "{" at character 7'],
    ['Lone } brace', 'Single "}" at character 5'],
  ])('refuses %j', (template, message) => {
    expect(() => parseTemplate(template)).toThrow(TemplateSyntaxError);
    expect(() => parseTemplate(template)).toThrow(message);
  });
});

describe('parseJudgeScore', () => {
  it.each([
    ['8', 8],
    [' 7.5 \n', 7.5],
    ['**9**', 9],
    ['8/10', 8],
    ['6 out of 10.', 6],
    ['{"score": 0.75, "reason": "mostly"}', 0.75],
    ['```json\n{"score": "3"}\n```', 3],
    ['0.2', 0.2],
    ['The answer names the right city but misspells it.\nScore: 7', 7],
    ['Rating = 4/5', 4],
    ['First I thought score: 3, but on reflection the final score is 5', 5],
    ['I would give it a 6 because it is close.', 6],
  ])('reads %j as %d', (reply, expected) => {
    expect(parseJudgeScore(reply)).toBe(expected);
  });

  it.each([['Excellent answer!'], ['Between 6 and 8'], [''], ['{"reason": "no score field"}']])('finds no score in %j', (reply) => {
    expect(parseJudgeScore(reply)).toBeUndefined();
  });
});

describe('judgeMessages', () => {
  it('fills every placeholder from the case: output, expected answer, inputs without it, columns', () => {
    const settings = storedSettings('auto_ai_critique', {
      prompt_template: [
        { role: 'system', content: 'Judge {{strictly}}.' },
        { role: 'user', content: 'Q: {country} ({n})\nA: {prediction} / {variant_output}\nE: {ground_truth} = {correct_answer}\nI: {inputs}' },
      ],
      correct_answer_key: 'testcase.capital',
    });
    const messages = judgeMessages(settings, scoringCase({ output: { city: 'Paris' }, testcase: { country: 'France', n: 3, capital: 'Paris' } }));
    expect(messages).toEqual([
      { role: 'system', content: 'Judge {strictly}.' },
      { role: 'user', content: 'Q: France (3)\nA: {"city":"Paris"} / {"city":"Paris"}\nE: Paris = Paris\nI: {"country":"France","n":3}' },
    ]);
  });
});

describe('auto_ai_critique scorer', () => {
  let openai: FakeEndpoint;
  const replies = new Map<string, string>();

  beforeAll(async () => {
    openai = await startFakeOpenAI((body) => ({ content: replies.get(body.messages.at(-1).content) ?? '5' }));
  });
  afterAll(async () => {
    await openai?.close();
  });

  const context = () => ({
    signal: new AbortController().signal,
    providers: providerClient({
      prices: builtinPriceList,
      keys: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: openai.url },
      dispatcher: new Agent(),
      env: {},
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 0,
      signal: new AbortController().signal,
    }),
  });

  it('sends the default prompt at temperature 0 to the default model and returns the parsed score', async () => {
    replies.set('Expected answer:\nParis\n\nAnswer to evaluate:\nParis.\n\nScore (0-10):', 'Score: 9');
    expect(await valueOf('number', score('auto_ai_critique', {}, { output: 'Paris.', testcase: { correct_answer: 'Paris' } }, context()))).toBe(9);
    expect(openai.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0 });
  });

  it('gives an error result quoting a reply without a score', async () => {
    replies.set('Expected answer:\nLima\n\nAnswer to evaluate:\nLima\n\nScore (0-10):', 'Looks right to me!');
    expect(await faultOf(score('auto_ai_critique', {}, { output: 'Lima', testcase: { correct_answer: 'Lima' } }, context()))).toBe(
      'The judge\'s reply has no score: "Looks right to me!"',
    );
  });

  it('gives an error result naming a column the case lacks, without calling the judge', async () => {
    const before = openai.requests.length;
    const settings = { prompt_template: [{ role: 'user', content: '{prediction} for {country}' }] };
    expect(await faultOf(score('auto_ai_critique', settings, { output: 'x', testcase: { city: 'Paris' } }, context()))).toBe(
      'The test case has no column "country" (columns: city)',
    );
    expect(openai.requests.length).toBe(before);
  });

  it('gives an error result when no provider is available', async () => {
    expect(await faultOf(score('auto_ai_critique', {}, { output: 'x', testcase: { correct_answer: 'x' } }))).toBe(
      'This evaluator calls a model provider, which is not available here',
    );
  });
});
