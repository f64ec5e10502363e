// Flattened keys nested again (`unflatten`): the forms OpenInference and the older GenAI
// conventions send, and the edges a client may send that no convention names.
import { describe, expect, it } from 'vitest';
import { unflatten } from './attribute-values.js';

describe('unflatten', () => {
  it('nests the keys under the prefix, index branches as arrays in index order', () => {
    const attrs = {
      'llm.input_messages.1.message.role': 'assistant',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': 'hi',
      'llm.input_messages.10.message.role': 'tool',
      'llm.input_messagesX.0': 'not under the prefix',
      'llm.input': 'nor this',
      other: 1,
    };
    expect(unflatten(attrs, 'llm.input_messages')).toEqual([
      { message: { role: 'user', content: 'hi' } },
      { message: { role: 'assistant' } },
      { message: { role: 'tool' } },
    ]);
    expect(unflatten(attrs, 'llm.output_messages')).toBeUndefined();
  });

  it('sorts indexes written with leading zeros by their number, and keeps mixed keys an object', () => {
    expect(unflatten({ 'p.02': 'c', 'p.1': 'b', 'p.00': 'a' }, 'p')).toEqual(['a', 'b', 'c']);
    expect(unflatten({ 'p.0': 'a', 'p.x': 'b' }, 'p')).toEqual({ 0: 'a', x: 'b' });
    expect(unflatten({ 'p.': 'empty part' }, 'p')).toEqual({ '': 'empty part' });
  });

  it('keeps the first of a leaf and a branch sent at the same place', () => {
    expect(unflatten({ 'p.0.a': 1, 'p.0.a.b': 2 }, 'p')).toEqual([{ a: 1 }]);
    expect(unflatten({ 'p.0.a.b': 2, 'p.0.a': 1 }, 'p')).toEqual([{ a: { b: 2 } }]);
  });

  it('reads keys it has seen under another prefix, and any number of distinct keys, alike', () => {
    expect(unflatten({ 'a.b.c': 1 }, 'a')).toEqual({ b: { c: 1 } });
    expect(unflatten({ 'a.b.c': 1 }, 'a.b')).toEqual({ c: 1 });
    for (let i = 0; i < 25_000; i += 1000) {
      const attrs = Object.fromEntries(Array.from({ length: 1000 }, (_, j) => [`k.${i + j}.v`, i + j]));
      const list = unflatten(attrs, 'k') as { v: number }[];
      expect(list.map((item) => item.v)).toEqual(Array.from({ length: 1000 }, (_, j) => i + j));
    }
  });
});
