// The span tree serialiser (span-json-text.ts): JSON.stringify's text at any depth.
import { describe, expect, it } from 'vitest';
import type { SpanJson } from './responses.js';
import { stringifySpanTree } from './span-json-text.js';

describe('stringifySpanTree', () => {
  const leaf = (id: string, children: SpanJson[] | null = []) => ({ id, name: `n${id}`, children }) as unknown as SpanJson;

  it('writes the same text as JSON.stringify', () => {
    const tree = leaf('r', [leaf('a', [leaf('a1'), leaf('a2')]), leaf('b')]);
    expect(stringifySpanTree(tree)).toBe(JSON.stringify(tree));
    expect(stringifySpanTree(leaf('alone', null))).toBe(JSON.stringify(leaf('alone', null)));
  });

  it('writes the same text as JSON.stringify on trees deep enough for the iterative writer', () => {
    // 700 levels (past the native threshold, within JSON.stringify's reach), with side branches.
    const top = leaf('0');
    let node = top;
    for (let i = 1; i < 700; i++) {
      const child = leaf(String(i));
      node.children!.push(child, leaf(`side${i}`), leaf(`alone${i}`, null));
      node = child;
    }
    expect(stringifySpanTree(top)).toBe(JSON.stringify(top));
  });

  it('writes trees far deeper than JSON.stringify can', () => {
    const top = leaf('0');
    let node = top;
    for (let i = 1; i < 20_000; i++) {
      const child = leaf(String(i));
      node.children!.push(child);
      node = child;
    }
    expect(() => JSON.stringify(top)).toThrow(RangeError);
    const text = stringifySpanTree(top);
    expect(text.startsWith('{"id":"0","name":"n0","children":[{"id":"1"')).toBe(true);
    expect(text.endsWith(`{"id":"19999","name":"n19999","children":[]}${']}'.repeat(19_999)}`)).toBe(true);
  });
});
