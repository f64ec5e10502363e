import { describe, expect, it } from 'vitest';
import { placeholders, variablesFrom } from './prompt.ts';

describe('placeholders', () => {
  it('finds {{variable}} and {column} names once each, in order, and leaves JSON braces alone', () => {
    const messages = [
      { role: 'system', content: 'Answer as {"json": true} in {{ language }}.' },
      { role: 'user', content: 'Capital of {country}? ({{language}})' },
    ];
    expect(placeholders(messages)).toEqual(['language', 'country']);
    expect(placeholders([{ role: 'user', content: 'no variables' }])).toEqual([]);
  });
});

describe('variablesFrom', () => {
  it("takes a test case's columns, a trace's `inputs`, or a lone value for a lone variable", () => {
    expect(variablesFrom({ country: 'Peru', correct_answer: 'Lima', n: 3 }, ['country', 'n', 'missing'])).toEqual({ country: 'Peru', n: '3' });
    expect(variablesFrom({ inputs: { country: 'Chile' } }, ['country'])).toEqual({ country: 'Chile' });
    expect(variablesFrom('What is up?', ['question'])).toEqual({ question: 'What is up?' });
    expect(variablesFrom('What is up?', ['a', 'b'])).toEqual({});
    expect(variablesFrom(null, ['a'])).toEqual({});
  });
});
