// pythonJsonFault against Python's own `json` module (python3 on the machine, as FastAPI would
// run): hand-picked malformed texts and a few thousand mutations of valid ones must get the same
// position and message.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pythonJsonFault } from './json-errors.js';

/** Python's verdict on each text: [position, message], or null when it parses. */
function python(texts: string[]): ([number, string] | null)[] {
  const script = `
import json, sys
out = []
for text in json.load(sys.stdin):
    try:
        json.loads(text.encode('utf-8'))
        out.append(None)
    except json.JSONDecodeError as e:
        out.append([e.pos, e.msg])
    except RecursionError:
        out.append([0, 'Too deeply nested'])
print(json.dumps(out))`;
  return JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify(texts), maxBuffer: 64 << 20 }).toString()) as ([number, string] | null)[];
}

const handPicked = [
  'not json',
  '{"app_id": tru}',
  '{"a": 1,}',
  '{"a" 1}',
  '[1, 2',
  '{"a": "x',
  '{} x',
  ' ',
  '{"a": "\\q"}',
  '{"a": "b\nc"}',
  '{a: 1}',
  'nul',
  '{"a": -}',
  '{"a": 01}',
  '{"a": 1.}',
  '{"a": 1e}',
  '{"a": 1e+}',
  '[1.5e3, -0, 2E-2x]',
  '"\\u00zz"',
  '"\\u12"',
  '"abc\\',
  '{"é😀": tru}',
  '\uFEFF{"a": }',
  '[',
  '{',
  '{"a"',
  '{"a":',
  '[1,]',
  '[,1]',
  '{"a":1 "b":2}',
  "{'a': 1}",
  '[NaN, Infinity, -Infinity, -Inf]',
  '[true, fals]',
  '{"a": [1, {"b": nul}]}',
];

const alphabet = ['{', '}', '[', ']', '"', ':', ',', ' ', '\n', '\\', 'u', '0', '1', '-', '.', 'e', 'a', 't', 'n', 'é', '😀', '\u0001'];
const seeds = ['{"app_id": "a", "variant_ids": ["v1", "v2"], "rate_limit": {"batch_size": 5, "x": -1.5e3}}', '[1, "two", null, true, {"k": "\\u00e9\\n"}]'];

/** Deterministic mutations (a small LCG): insert, delete or replace one to three characters. */
function mutations(count: number): string[] {
  let state = 42;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    const chars = Array.from(seeds[next(seeds.length)]);
    for (let edits = 1 + next(3); edits > 0; edits--) {
      const at = next(chars.length + 1);
      const kind = next(3);
      if (kind === 0) chars.splice(at, 0, alphabet[next(alphabet.length)]);
      else if (kind === 1) chars.splice(at, 1);
      else chars.splice(at, 1, alphabet[next(alphabet.length)]);
    }
    texts.push(chars.join(''));
  }
  return texts;
}

describe('pythonJsonFault', () => {
  it('finds the position and message Python finds, on hand-picked and mutated texts', () => {
    const texts = [...handPicked, ...mutations(3000)];
    const expected = python(texts);
    const differences = texts.flatMap((text, index) => {
      const fault = pythonJsonFault(text);
      const got = fault === null ? null : [fault.position, fault.message];
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      // Texts both parse are not this function's business (it runs after JSON.parse refused).
      if (parses && expected[index] === null) return [];
      return JSON.stringify(got) === JSON.stringify(expected[index]) ? [] : [{ text, got, python: expected[index] }];
    });
    expect(differences).toEqual([]);
    // The corpus is mostly malformed: it exercised the faults, not just valid texts.
    expect(expected.filter((verdict) => verdict !== null).length).toBeGreaterThan(2000);
  });
});
